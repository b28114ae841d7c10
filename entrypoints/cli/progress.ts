/**
 * `check`'s progress on stderr. To a pipe or a log, one plain line per
 * event. To a terminal, each finished rule still gets its own line, and one
 * status line below them (which rules are being asked, how many are done)
 * is redrawn in place, then cleared before the report is printed.
 */
import { plainLabel, questionProgressLine, rowProgressLine, truncateToWidth } from '../../core/review/check-report.ts'
import type { RunEvent } from '../../ports/queue.ts'

export type ProgressPrinter = {
  /** A line of its own, e.g. what is about to be checked. */
  note(text: string): void
  /** The classifier's listener. */
  onProgress(event: RunEvent): void
  /** Clears the status line, if one is showing. */
  finish(): void
}

/** Carriage return, then erase the line: the status line's redraw. */
const CLEAR_LINE = '\r\x1b[2K'

export function createProgressPrinter(
  write: (text: string) => void,
  terminal: { isTty: boolean; columns: number | null },
): ProgressPrinter {
  let started = 0
  let done = 0
  let total = 0
  const asking: string[] = []
  let statusShown = false

  function status(): string {
    const names = asking.map((name) => JSON.stringify(plainLabel(name, 30))).join(', ')
    const text = `checking: ${done} of ${total} done${names === '' ? '' : `; asking ${names}`}`
    // One column spare: a line that fills the terminal wraps, and the redraw would leave it behind.
    return terminal.columns === null ? text : truncateToWidth(text, Math.max(10, terminal.columns - 1))
  }

  function line(text: string): void {
    if (!terminal.isTty) {
      write(`${text}\n`)
      return
    }
    write(`${statusShown ? CLEAR_LINE : ''}${text}\n`)
    if (total > 0) {
      write(status())
      statusShown = true
    } else {
      statusShown = false
    }
  }

  function redraw(): void {
    if (!terminal.isTty) return
    write(`${CLEAR_LINE}${status()}`)
    statusShown = true
  }

  return {
    note: line,
    onProgress(event) {
      total = event.total
      if (event.kind === 'taken') return
      if (event.kind === 'question-started') {
        started += 1
        asking.push(event.name)
        // A terminal shows who is asked in the status line; a log gets the line.
        if (terminal.isTty) redraw()
        else line(questionProgressLine(event.name, started, event.total))
        return
      }
      done += 1
      const at = asking.indexOf(event.row.name)
      if (at !== -1) asking.splice(at, 1)
      line(rowProgressLine(event.row, done, event.total))
    },
    finish() {
      if (statusShown) write(CLEAR_LINE)
      statusShown = false
    },
  }
}
