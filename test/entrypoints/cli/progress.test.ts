import { describe, expect, it } from 'bun:test'
import { createProgressPrinter } from '../../../entrypoints/cli/progress.ts'
import { aRow } from '../../support/builders.ts'

function printer(terminal: { isTty: boolean; columns: number | null }) {
  let text = ''
  const progress = createProgressPrinter((t) => {
    text += t
  }, terminal)
  return { progress, text: () => text }
}

function runTwoRules(progress: ReturnType<typeof createProgressPrinter>): void {
  progress.note('checking 1 commit')
  progress.onProgress({ kind: 'question-started', id: 'local-check', name: 'datetime', total: 2 })
  progress.onProgress({ kind: 'row', id: 'local-check', row: aRow({ name: 'datetime' }), total: 2 })
  progress.onProgress({ kind: 'question-started', id: 'local-check', name: 'no-ads', total: 2 })
  progress.onProgress({
    kind: 'row',
    id: 'local-check',
    row: aRow({ name: 'no-ads', verdict: null, certainty: null, error: { kind: 'timeout', detail: 'x' } }),
    total: 2,
  })
  progress.finish()
}

describe('createProgressPrinter', () => {
  it('writes one plain line per event to a pipe or a log', () => {
    const { progress, text } = printer({ isTty: false, columns: null })
    runTwoRules(progress)
    expect(text()).toBe(
      [
        'checking 1 commit',
        'asking "datetime" (1 of 2; the others wait for it, then read its context from the cache)',
        'answered "datetime" (1 of 2 done): match, certainty 90',
        'asking "no-ads" (2 of 2)',
        'no answer for "no-ads" (2 of 2 done): timeout',
        '',
      ].join('\n'),
    )
  })

  it('keeps a status line in place on a terminal, and clears it at the end', () => {
    const { progress, text } = printer({ isTty: true, columns: 50 })
    runTwoRules(progress)
    const out = text()
    // What stays on screen: each line up to a redraw, with the last status cleared.
    const screen = out
      .split('\n')
      .map((line) => line.split('\r\x1b[2K').at(-1) ?? '')
      .filter((line) => line !== '')
    expect(screen).toEqual([
      'checking 1 commit',
      'answered "datetime" (1 of 2 done): match, certainty 90',
      'no answer for "no-ads" (2 of 2 done): timeout',
    ])
    expect(out).toContain('\r\x1b[2Kchecking: 0 of 2 done; asking "datetime"')
    expect(out.endsWith('\r\x1b[2K')).toBe(true)
  })

  it('cuts the status line short of the terminal width, or its redraw would leave the wrapped part behind', () => {
    const { progress, text } = printer({ isTty: true, columns: 30 })
    runTwoRules(progress)
    const statuses = text()
      .split(/\r\x1b\[2K|\n/)
      .filter((part) => part.startsWith('checking:'))
    expect(statuses.length).toBeGreaterThan(2)
    for (const status of statuses) expect(status.length).toBeLessThan(30)
    expect(statuses).toContain('checking: 0 of 2 done; askin…')
  })
})
