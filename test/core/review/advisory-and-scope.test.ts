/**
 * What a review shows of advisory and out-of-scope rules (issue 31): the row
 * says it is advisory, the advisory failures are listed under the table, and
 * the commit status says they don't block, within its 80 characters.
 */
import { describe, expect, it } from 'bun:test'
import { verdictStatus } from '../../../core/review/commit-status.ts'
import {
  ADVISORY_FAILURES_HEADING,
  renderNoVerdictBody,
  renderReviewBody,
  reviewRowCells,
} from '../../../core/review/review-body.ts'
import { outOfScopeRow } from '../../../core/run/aggregate.ts'
import { aClassification, aRow } from '../../support/builders.ts'

const advisoryFail = aRow({
  name: 'style',
  verdict: 'no-match',
  reason: 'The @owner #12 naming is off.',
  fails: true,
  mode: 'advisory',
  in_scope: true,
  blocks: false,
})
const blockingFail = aRow({ name: 'datetime', verdict: 'no-match', fails: true, mode: 'blocking', blocks: true })
const passing = aRow({ name: 'docs', mode: 'blocking', blocks: false })
const outOfScope = outOfScopeRow(aClassification({ name: 'migrations', paths: ['db/**'] }))

describe('the review body', () => {
  it('marks an advisory row, and its failure as not blocking', () => {
    expect(reviewRowCells(advisoryFail).slice(0, 2)).toEqual(['style', 'positive, advisory'])
    expect(reviewRowCells(advisoryFail)[5]).toBe('yes 🟡 advisory')
    expect(reviewRowCells(blockingFail)[5]).toBe('yes ❌')
  })

  it('shows an out-of-scope row as not applicable, with no certainty and its reason', () => {
    expect(reviewRowCells(outOfScope)).toEqual([
      'migrations',
      'positive',
      'not applicable',
      '—',
      '80',
      'no',
      'No changed file matches its paths.',
    ])
  })

  it('lists the advisory failures under the table, escaped, before the overall line', () => {
    const body = renderReviewBody([passing, advisoryFail, outOfScope], 'approve')
    const table = body.indexOf('| migrations |')
    const heading = body.indexOf(ADVISORY_FAILURES_HEADING)
    const overall = body.indexOf('**Overall: approve.**')
    expect(table).toBeGreaterThan(0)
    expect(heading).toBeGreaterThan(table)
    expect(overall).toBeGreaterThan(heading)
    expect(body).toContain("advisory rules don't block")
    expect(body).toContain('- style: The &#64;\u200Bowner &#35;\u200B12 naming is off.')
    expect(body).not.toContain('- docs')
  })

  it('lists none when no advisory rule fails, and lists them in a no-verdict body too', () => {
    expect(renderReviewBody([passing, blockingFail], 'request-changes')).not.toContain(ADVISORY_FAILURES_HEADING)
    const body = renderNoVerdictBody('1 of 2 classifications got no answer', {
      rows: [advisoryFail],
      overall: 'no-verdict',
    })
    expect(body).toContain(ADVISORY_FAILURES_HEADING)
  })
})

describe('the commit status', () => {
  it('says an approval has advisory failures that do not block', () => {
    expect(verdictStatus('approve', [passing, advisoryFail]).description).toBe(
      "Approve: 1 advisory rule fails, advisory rules don't block (2 of 2 counted)",
    )
  })

  it('counts only blocking failures as what requests changes, and names the advisory ones', () => {
    expect(verdictStatus('request-changes', [blockingFail, advisoryFail]).description).toBe(
      'Request changes: 1 counted rule fails, 1 advisory (2 of 2 counted)',
    )
  })

  it('stays within 80 characters of its own words at the most rules there can be', () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ ...advisoryFail, name: `r${i}` }))
    const descriptions = [
      verdictStatus('approve', many).description,
      verdictStatus('request-changes', [...many.slice(1), blockingFail]).description,
    ]
    for (const description of descriptions) {
      expect(description.length).toBeLessThanOrEqual(80)
      expect(description).toMatch(/^[A-Za-z0-9 :,'()]+$/)
    }
  })

  it('counts an out-of-scope rule among the rules, never as counted', () => {
    expect(verdictStatus('approve', [outOfScope]).description).toBe(
      'Approve: no counted rule fails (0 of 1 rule counted)',
    )
  })
})
