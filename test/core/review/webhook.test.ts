import { describe, expect, it } from 'bun:test'
import { decodeReviewRequestDelivery, reviewRequestKey } from '../../../core/review/webhook.ts'
import { type DeliveryOptions, goJson, reviewRequestPayload } from '../../support/webhook.ts'

const REVIEW_REQUEST = { eventType: 'pull_request_review_request' }

/** The payload as the route sees it: parsed from the bytes Forgejo sends. */
function delivered(options: DeliveryOptions = {}): unknown {
  return JSON.parse(goJson(reviewRequestPayload(options)))
}

describe('decodeReviewRequestDelivery', () => {
  it('starts a run for a request of review-classifier, with repo, PR, head and requester', () => {
    const decoded = decodeReviewRequestDelivery(REVIEW_REQUEST, delivered({ headSha: 'abc123', sender: 'bob', pr: 7 }))
    expect(decoded).toEqual({
      kind: 'start',
      repo: { owner: 'acme', name: 'widgets' },
      pr: 7,
      headSha: 'abc123',
      requester: 'bob',
    })
  })

  it('matches the account login case-insensitively, as Forgejo does', () => {
    const decoded = decodeReviewRequestDelivery(REVIEW_REQUEST, delivered({ reviewer: 'Review-Classifier' }))
    expect(decoded.kind).toBe('start')
  })

  it('ignores a removed request', () => {
    const decoded = decodeReviewRequestDelivery(REVIEW_REQUEST, delivered({ action: 'review_request_removed' }))
    expect(decoded).toEqual({ kind: 'ignore', reason: 'a removed review request starts nothing' })
  })

  it('ignores a request of another reviewer even when the PR lists review-classifier as requested', () => {
    const decoded = decodeReviewRequestDelivery(
      REVIEW_REQUEST,
      delivered({ reviewer: 'carol', requestedReviewers: ['review-classifier', 'carol'] }),
    )
    expect(decoded.kind).toBe('ignore')
    if (decoded.kind === 'ignore') expect(decoded.reason).toContain('"carol"')
  })

  it('starts on requested_reviewer alone, whatever requested_reviewers lists', () => {
    const decoded = decodeReviewRequestDelivery(REVIEW_REQUEST, delivered({ requestedReviewers: [] }))
    expect(decoded.kind).toBe('start')
  })

  it('ignores other event types and actions', () => {
    expect(decodeReviewRequestDelivery({ eventType: 'pull_request_approved' }, delivered()).kind).toBe('ignore')
    expect(decodeReviewRequestDelivery({ eventType: 'pull_request' }, delivered()).kind).toBe('ignore')
    expect(decodeReviewRequestDelivery(REVIEW_REQUEST, delivered({ action: 'synchronized' })).kind).toBe('ignore')
  })

  it('quotes an ignored action or reviewer in a short reason, invisible characters escaped', () => {
    const action = decodeReviewRequestDelivery(REVIEW_REQUEST, delivered({ action: 'x'.repeat(500_000) }))
    expect(action).toEqual({ kind: 'ignore', reason: `action "${'x'.repeat(99)}…" starts nothing` })
    const reviewer = decodeReviewRequestDelivery(REVIEW_REQUEST, delivered({ reviewer: 'review-classifier\u200b' }))
    expect(reviewer).toEqual({
      kind: 'ignore',
      reason: 'the review was requested from "review-classifier\\u200b", not review-classifier',
    })
  })

  it('calls a delivery without an event type invalid', () => {
    expect(decodeReviewRequestDelivery({ eventType: null }, delivered()).kind).toBe('invalid')
    expect(decodeReviewRequestDelivery({ eventType: ' ' }, delivered()).kind).toBe('invalid')
  })

  it('calls a review request without the fields a run needs invalid, naming the field', () => {
    const payload = reviewRequestPayload()
    const noHead = { ...payload, pull_request: { number: 42 } }
    const decoded = decodeReviewRequestDelivery(REVIEW_REQUEST, noHead)
    expect(decoded.kind).toBe('invalid')
    if (decoded.kind === 'invalid') expect(decoded.detail).toContain('pull_request.head')

    const noReviewer = { ...payload, requested_reviewer: null }
    expect(decodeReviewRequestDelivery(REVIEW_REQUEST, noReviewer).kind).toBe('invalid')
    expect(decodeReviewRequestDelivery(REVIEW_REQUEST, { ...payload, number: '42' }).kind).toBe('invalid')
    expect(decodeReviewRequestDelivery(REVIEW_REQUEST, [1, 2]).kind).toBe('invalid')
    expect(decodeReviewRequestDelivery(REVIEW_REQUEST, 'review_requested').kind).toBe('invalid')
  })

  it('takes the base repository, not the fork the head lives in', () => {
    const payload = reviewRequestPayload({ owner: 'acme', repo: 'widgets' })
    const fork = {
      ...payload,
      pull_request: { number: 42, head: { sha: 'f00d', repo: { full_name: 'mallory/widgets' } } },
    }
    const decoded = decodeReviewRequestDelivery(REVIEW_REQUEST, fork)
    expect(decoded).toMatchObject({ kind: 'start', repo: { owner: 'acme', name: 'widgets' }, headSha: 'f00d' })
  })
})

describe('reviewRequestKey', () => {
  it('is the same for names in other case and a sha in upper case, and differs per head', () => {
    const a = reviewRequestKey({ repo: { owner: 'Acme', name: 'Widgets' }, pr: 4, headSha: 'ABC' })
    const b = reviewRequestKey({ repo: { owner: 'acme', name: 'widgets' }, pr: 4, headSha: 'abc' })
    const c = reviewRequestKey({ repo: { owner: 'acme', name: 'widgets' }, pr: 4, headSha: 'abd' })
    expect(a).toBe(b)
    expect(c).not.toBe(b)
  })
})
