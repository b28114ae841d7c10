import { describe, expect, it } from 'bun:test'
import {
  COMMIT_STATUS_CONTEXT,
  describeStatusProblems,
  PENDING_STATUS,
  verdictStatus,
} from '../../../core/review/commit-status.ts'
import { NO_RUN } from '../../../core/review/no-run.ts'
import type { Overall } from '../../../core/wire/types.ts'
import { anUnansweredRow, aRow } from '../../support/builders.ts'

/** Text from outside that must never reach a description. */
const HOSTILE = 'x | <b>@admin</b> #1 https://evil.example\nsecond line'

const passing = aRow({ name: HOSTILE, reason: HOSTILE })
const failing = aRow({ name: 'no-ads', polarity: 'negative', verdict: 'match', fails: true })
const belowThreshold = aRow({ name: 'docs', certainty: 40, counted: false })
const unanswered = anUnansweredRow({ name: 'tests', error: { kind: 'runtime', detail: HOSTILE } })

describe('verdictStatus', () => {
  it('sets success for approve, failure for request changes, error for no verdict', () => {
    const states: Record<Overall, string> = {
      approve: verdictStatus('approve', [passing]).state,
      'request-changes': verdictStatus('request-changes', [failing]).state,
      'no-verdict': verdictStatus('no-verdict', null).state,
    }
    expect(states).toEqual({ approve: 'success', 'request-changes': 'failure', 'no-verdict': 'error' })
  })

  it('describes each verdict with its counts', () => {
    expect(verdictStatus('approve', [passing, belowThreshold]).description).toBe(
      'Approve: no counted rule fails (1 of 2 rules counted)',
    )
    expect(verdictStatus('approve', [belowThreshold]).description).toBe(
      'Approve: no counted rule fails (0 of 1 rule counted)',
    )
    expect(verdictStatus('request-changes', [passing, failing, belowThreshold]).description).toBe(
      'Request changes: 1 counted rule fails (2 of 3 rules counted)',
    )
    expect(verdictStatus('request-changes', [failing, { ...failing, name: 'other' }]).description).toBe(
      'Request changes: 2 counted rules fail (2 of 2 rules counted)',
    )
    expect(verdictStatus('no-verdict', [passing, unanswered]).description).toBe(
      'No verdict: 1 of 2 rules got no answer',
    )
    expect(verdictStatus('no-verdict', null).description).toBe('No verdict: the run ended without a clean verdict')
    expect(verdictStatus('no-verdict', [passing]).description).toBe('No verdict: the run ended without a clean verdict')
  })

  it('keeps every description to one short line of its own words, whatever the rows hold', () => {
    const descriptions = [
      verdictStatus('approve', [passing]).description,
      verdictStatus('request-changes', [passing, failing]).description,
      verdictStatus('no-verdict', [passing, unanswered]).description,
      PENDING_STATUS.description,
      ...Object.values(NO_RUN).map((entry) => entry.status.description),
    ]
    for (const description of descriptions) {
      expect(description).toMatch(/^[A-Za-z0-9 :,'()]+$/)
      expect(description.length).toBeLessThanOrEqual(80)
    }
  })
})

describe('the other statuses', () => {
  it('names the context after the service, pending before a verdict, error for a request turned away', () => {
    expect(COMMIT_STATUS_CONTEXT).toBe('review-classifier')
    expect(PENDING_STATUS.state).toBe('pending')
    expect(NO_RUN['queue-full'].status).toEqual({
      state: 'error',
      description: 'No verdict: every review place was taken, so no run started',
    })
  })
})

describe('describeStatusProblems', () => {
  it('is null when no status was refused', () => {
    expect(describeStatusProblems([])).toBeNull()
  })

  it('names the states refused for one reason together, and each other reason after', () => {
    expect(
      describeStatusProblems([
        { state: 'pending', error: 'the forge answered 403' },
        { state: 'success', error: 'the forge answered 403' },
      ]),
    ).toBe("the commit status couldn't be set (pending, success): the forge answered 403")
    expect(
      describeStatusProblems([
        { state: 'pending', error: 'the forge answered 500' },
        { state: 'failure', error: 'the forge answered 404' },
      ]),
    ).toBe(
      "the commit status couldn't be set (pending): the forge answered 500; the commit status couldn't be set (failure): the forge answered 404",
    )
  })
})
