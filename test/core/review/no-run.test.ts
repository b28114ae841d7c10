import { describe, expect, it } from 'bun:test'
import { verdictStatus } from '../../../core/review/commit-status.ts'
import { NO_RUN, noRunText } from '../../../core/review/no-run.ts'

describe('noRunText', () => {
  it('gives a full queue its own reason, status and outcome', () => {
    expect(noRunText({ kind: 'queue-full' })).toEqual({
      reason: NO_RUN['queue-full'].reason,
      status: { state: 'error', description: 'No verdict: every review place was taken, so no run started' },
      outcome: 'queue-full',
    })
  })

  it('records a stopping controller as a no-verdict with its own status', () => {
    expect(noRunText({ kind: 'stopping' })).toMatchObject({
      reason: 'the controller was stopping (restarted or shut down) when this request came, so it starts no run',
      status: { state: 'error', description: 'No verdict: the controller was stopping, so no run started' },
      outcome: 'no-verdict',
    })
  })

  it("posts the budget's own sentence, and keeps it out of the status", () => {
    const spent = noRunText({ kind: 'budget-spent', reason: "today's budget of $1.00 (UTC) is spent | <b>" })
    expect(spent.reason).toBe("today's budget of $1.00 (UTC) is spent | <b>")
    expect(spent.status.description).toBe("No verdict: today's budget (UTC) is spent, so no run started")
    const unread = noRunText({ kind: 'budget-unreadable', reason: "today's spend couldn't be read: boom" })
    expect(unread).toEqual({
      reason: "today's spend couldn't be read: boom",
      status: verdictStatus('no-verdict', null),
      outcome: 'no-verdict',
    })
  })
})
