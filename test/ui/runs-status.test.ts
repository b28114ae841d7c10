/** The recent-runs page's status line (ui/runs-status.ts): it follows the filters. */
import { describe, expect, it } from 'bun:test'
import { runsStatusLine } from '../../ui/runs-status.ts'
import { aRunRecord } from '../support/builders.ts'

const runs = [
  aRunRecord({ id: 'r5', pr: 5 }),
  aRunRecord({ id: 'r4', pr: 4, outcome: 'changes-requested' }),
  aRunRecord({ id: 'r3', pr: 3 }),
  aRunRecord({ id: 'r2', trigger: 'try-out', outcome: 'done', pr: undefined, labelled_prs: [1, 2] }),
  aRunRecord({ id: 'r1', pr: 1 }),
]

describe('runsStatusLine', () => {
  it('names the newest run when nothing is filtered out', () => {
    expect(runsStatusLine(runs, runs, 5)).toBe(
      '5 runs, newest first. The newest is acme/widgets #5. The list refreshes every 5 s.',
    )
    expect(runsStatusLine([], [], 5)).toBe('0 runs, newest first. The list refreshes every 5 s.')
  })

  it('counts the runs shown and names the newest shown, not one a filter hides', () => {
    const shown = runs.filter((run) => run.outcome === 'changes-requested')
    expect(runsStatusLine(runs, shown, 5)).toBe(
      '1 of 5 runs shown, newest first. The newest shown is acme/widgets #4. The list refreshes every 5 s.',
    )
    expect(runsStatusLine(runs, [runs[3] ?? runs[0]!], 5)).toContain('The newest shown is acme/widgets (labelled PRs).')
    expect(runsStatusLine(runs, [], 5)).toBe(
      'None of 5 runs shown: the filters hide them all. The list refreshes every 5 s.',
    )
  })
})
