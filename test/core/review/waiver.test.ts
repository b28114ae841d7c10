import { describe, expect, it } from 'bun:test'
import { parseCommentCommands } from '../../../core/review/comment-commands.ts'
import { renderReviewTable } from '../../../core/review/review-body.ts'
import {
  earlierWaivers,
  latestReview,
  renderWaiverBody,
  renderWaiverReminder,
  shouldHaveAnswered,
  type Waiver,
  waiverStatus,
  waiverTarget,
} from '../../../core/review/waiver.ts'
import { aRow, aRunRecord } from '../../support/builders.ts'

const HEAD = 'a'.repeat(40)
const failing = aRow({ name: 'datetime', verdict: 'no-match', fails: true })
const alsoFailing = aRow({ name: 'no secrets', polarity: 'negative', verdict: 'match', fails: true })
const passing = aRow({ name: 'tests' })

function aWaiver(overrides: Partial<Waiver> = {}): Waiver {
  return { rule: 'datetime', by: 'maria', reason: 'parsed from the log, not made here', head_sha: HEAD, ...overrides }
}

const changes = aRunRecord({ outcome: 'changes-requested', overall: 'request-changes', rows: [failing, passing] })

describe('latestReview', () => {
  it("finds the newest posted review of the PR, a waiver's re-post included, skipping failed posts and other PRs", () => {
    const runs = [
      aRunRecord({ id: 'other-pr', pr: 8 }),
      aRunRecord({ id: 'failed', outcome: 'post-failed' }),
      aRunRecord({ id: 'try', trigger: 'try-out', outcome: 'done' }),
      aRunRecord({ id: 'waived', trigger: 'waiver', repo: 'ACME/Widgets' }),
      aRunRecord({ id: 'older' }),
    ]
    expect(latestReview(runs, 'acme/widgets', 7)?.id).toBe('waived')
    expect(latestReview(runs, 'acme/widgets', 9)).toBeNull()
  })
})

describe('waiverTarget', () => {
  it('takes the rule out of the overall: approve when nothing else blocks, the row saying who waived it', () => {
    expect(waiverTarget(changes, aWaiver())).toEqual({
      kind: 'apply',
      rows: [{ ...failing, waived_by: 'maria', blocks: false }, passing],
      overall: 'approve',
      waived: [aWaiver()],
    })
  })

  it('approves when what else fails is an advisory rule, which never blocks', () => {
    const advisory = { ...alsoFailing, mode: 'advisory' as const, blocks: false }
    const record = aRunRecord({ outcome: 'changes-requested', overall: 'request-changes', rows: [failing, advisory] })
    expect(waiverTarget(record, aWaiver())).toMatchObject({ kind: 'apply', overall: 'approve' })
    // A blocking one still does.
    const blocking = { ...alsoFailing, mode: 'blocking' as const, blocks: true }
    const other = aRunRecord({ outcome: 'changes-requested', overall: 'request-changes', rows: [failing, blocking] })
    expect(waiverTarget(other, aWaiver())).toMatchObject({ kind: 'apply', overall: 'request-changes' })
  })

  it('still requests changes while another rule fails, and adds to the waivers already on the head', () => {
    const first = waiverTarget(
      aRunRecord({ outcome: 'changes-requested', overall: 'request-changes', rows: [failing, alsoFailing] }),
      aWaiver(),
    )
    expect(first).toMatchObject({ kind: 'apply', overall: 'request-changes' })
    if (first.kind !== 'apply') throw new Error('not applied')
    const repost = aRunRecord({
      trigger: 'waiver',
      outcome: 'changes-requested',
      overall: first.overall,
      rows: first.rows,
      waived: first.waived,
    })
    const second = waiverTarget(repost, aWaiver({ rule: 'no secrets', by: 'li' }))
    expect(second).toMatchObject({ kind: 'apply', overall: 'approve' })
    if (second.kind !== 'apply') throw new Error('not applied')
    expect(second.waived.map((w) => w.rule)).toEqual(['datetime', 'no secrets'])
    expect(second.rows.map((row) => row.waived_by)).toEqual(['maria', 'li'])
  })

  it.each([
    ['no review at all', null, aWaiver(), 'there is no review of this PR'],
    ['a review of another head', changes, aWaiver({ head_sha: 'b'.repeat(40) }), 'of another commit'],
    [
      'a no-verdict review',
      aRunRecord({ outcome: 'no-verdict', overall: 'no-verdict', rows: [failing] }),
      aWaiver(),
      'has no verdict',
    ],
    ['a rule the review lacks', changes, aWaiver({ rule: 'nope' }), 'has no such rule'],
    ['a rule that passes', changes, aWaiver({ rule: 'tests' }), "doesn't fail"],
    [
      'a rule already waived',
      aRunRecord({ trigger: 'waiver', rows: [{ ...failing, waived_by: 'li' }] }),
      aWaiver(),
      'already waived',
    ],
  ] as const)('refuses %s', (_, latest, waiver, says) => {
    const target = waiverTarget(latest, waiver)
    expect(target.kind).toBe('refuse')
    expect(target.kind === 'refuse' ? target.reason : '').toContain(says)
  })
})

describe('shouldHaveAnswered', () => {
  it('is the verdict that would not have failed the rule', () => {
    expect(shouldHaveAnswered({ polarity: 'positive' })).toBe('match')
    expect(shouldHaveAnswered({ polarity: 'negative' })).toBe('no-match')
  })
})

describe('renderWaiverBody', () => {
  it('shows the table with the waived row, then the reason quoted and escaped, and the label command to copy', () => {
    const waiver = aWaiver({ reason: 'see <b>@boss</b> in #12 | https://evil.example' })
    const rows = [{ ...failing, waived_by: 'maria' }, passing]
    const body = renderWaiverBody(rows, 'approve', [waiver])
    expect(body.startsWith(renderReviewTable(rows, 'approve'))).toBe(true)
    expect(body).toContain('waived by &#64;\u200Bmaria')
    expect(body).toContain(
      '> **datetime** waived by &#64;\u200Bmaria: see &lt;b&gt;&#64;\u200Bboss&lt;/b&gt; in &#35;\u200B12 &#124; https&#58;\u200B//evil.example',
    )
    expect(body).toContain(
      'To add it to the examples, label it (copy the line into a comment):\n\n```\n@review-classifier label datetime match\n```',
    )
    expect(body).not.toContain('<b>')
    // Its own command, in a code block, gives no command should the body come back as a comment.
    expect(parseCommentCommands(body, 'review-classifier').commands).toEqual([])
  })

  it('escapes a hostile rule name in the quote, and keeps the label command in a code block it cannot close', () => {
    const rule = 'a`` <img src=x>'
    const rows = [{ ...failing, name: rule, waived_by: 'maria' }]
    const body = renderWaiverBody(rows, 'approve', [aWaiver({ rule })])
    expect(body).toContain('**a&#96;&#96; &lt;img src=x&gt;**')
    expect(body).toContain('```\n@review-classifier label a`` <img src=x> match\n```')
    const fenced = renderWaiverBody([{ ...failing, name: 'a````b', waived_by: 'maria' }], 'approve', [
      aWaiver({ rule: 'a````b' }),
    ])
    expect(fenced).toContain('`````\n@review-classifier label a````b match\n`````')
  })
})

describe('waiverStatus', () => {
  it('counts the waived rules and those still failing, naming none', () => {
    expect(waiverStatus([{ ...failing, waived_by: 'maria' }, passing], 'approve')).toEqual({
      state: 'success',
      description: 'Approve: 1 failing rule waived, no other rule fails',
    })
    expect(waiverStatus([{ ...failing, waived_by: 'maria' }, alsoFailing], 'request-changes')).toEqual({
      state: 'failure',
      description: 'Request changes: 1 counted rule fails (1 failing rule waived)',
    })
  })
})

describe('earlierWaivers and the reminder', () => {
  it("lists the PR's waivers on other heads, once per head and rule, and none of the current head's", () => {
    const old = aWaiver({ head_sha: 'b'.repeat(40) })
    const runs = [
      aRunRecord({ trigger: 'waiver', waived: [aWaiver()] }),
      aRunRecord({ trigger: 'waiver', waived: [old, aWaiver({ head_sha: 'b'.repeat(40), rule: 'tests' })] }),
      aRunRecord({ trigger: 'waiver', waived: [old] }),
      aRunRecord({ trigger: 'waiver', pr: 8, waived: [aWaiver({ head_sha: 'c'.repeat(40) })] }),
    ]
    const found = earlierWaivers(runs, 'acme/widgets', 7, HEAD)
    expect(found.map((w) => [w.rule, w.head_sha.slice(0, 1)])).toEqual([
      ['datetime', 'b'],
      ['tests', 'b'],
    ])
    const reminder = renderWaiverReminder(found) ?? ''
    expect(reminder).toContain('this review counts every rule again')
    expect(reminder).toContain(
      '- **datetime** on bbbbbbbbbbbb, by &#64;\u200Bmaria: parsed from the log, not made here',
    )
    expect(renderWaiverReminder([])).toBeNull()
  })
})
