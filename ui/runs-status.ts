/**
 * The recent-runs page's status line: how many runs the list holds, how
 * many its filters show, and the newest one shown, so it never names a run
 * a filter hides. No DOM, so it is tested outside a browser.
 */
import type { RunRecord } from '../core/run/run-record.ts'
import { plural } from './format.ts'

/** `acme/widgets #7`; a try-out against the examples ran several PRs and names none. */
function target(record: RunRecord): string {
  return record.pr === undefined ? `${record.repo} (labelled PRs)` : `${record.repo} #${record.pr}`
}

/**
 * `5 runs, newest first. The newest is acme/widgets #7. …` unfiltered;
 * `1 of 5 runs shown, newest first. The newest shown is acme/widgets #3. …`
 * when filters hide some; `None of 5 runs shown: …` when they hide all.
 */
export function runsStatusLine(all: readonly RunRecord[], shown: readonly RunRecord[], refreshS: number): string {
  const refresh = `The list refreshes every ${refreshS} s.`
  const newest = shown[0]
  if (shown.length === all.length) {
    const news = newest === undefined ? '' : ` The newest is ${target(newest)}.`
    return `${plural(all.length, 'run')}, newest first.${news} ${refresh}`
  }
  if (newest === undefined) return `None of ${plural(all.length, 'run')} shown: the filters hide them all. ${refresh}`
  return `${shown.length} of ${plural(all.length, 'run')} shown, newest first. The newest shown is ${target(newest)}. ${refresh}`
}
