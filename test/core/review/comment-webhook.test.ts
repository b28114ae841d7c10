import { describe, expect, it } from 'bun:test'
import { decodeForgeDelivery, decodePullCommentDelivery } from '../../../core/review/comment-webhook.ts'
import { pullCommentPayload } from '../../support/comment-webhook.ts'
import { checkDefinition, loadSwagger } from '../../support/fake-forgejo/swagger.ts'
import { reviewRequestPayload } from '../../support/webhook.ts'

describe('decodePullCommentDelivery', () => {
  it("reads a new PR comment: repo, PR, comment id and body, its writer and the PR's author", () => {
    const payload = pullCommentPayload({ commenter: 'maria', body: '@review-classifier label datetime match' })
    expect(decodePullCommentDelivery(payload)).toEqual({
      kind: 'comment',
      repo: { owner: 'acme', name: 'widgets' },
      pr: 42,
      commentId: 9001,
      body: '@review-classifier label datetime match',
      commenter: 'maria',
      author: 'alice',
    })
  })

  it.each(['edited', 'deleted'])(
    'ignores an %s comment: a command is given once, by the comment that gave it',
    (action) => {
      expect(decodePullCommentDelivery(pullCommentPayload({ action }))).toMatchObject({ kind: 'ignore' })
    },
  )

  it("ignores the service account's own comments, and a comment on an issue", () => {
    expect(decodePullCommentDelivery(pullCommentPayload({ commenter: 'Review-Classifier' }))).toEqual({
      kind: 'ignore',
      reason: 'a comment by review-classifier itself',
    })
    expect(decodePullCommentDelivery(pullCommentPayload({ isPull: false }))).toEqual({
      kind: 'ignore',
      reason: 'a comment on an issue, not a pull request',
    })
  })

  it('refuses a comment delivery that lacks what it is read for, naming the field', () => {
    const payload = pullCommentPayload()
    const { comment: _comment, ...noComment } = payload
    expect(decodePullCommentDelivery(noComment)).toMatchObject({ kind: 'invalid' })
    expect(decodePullCommentDelivery('nope')).toMatchObject({ kind: 'invalid' })
  })
})

describe('decodeForgeDelivery', () => {
  it('dispatches on the event type: a review request, a PR comment, and nothing else', () => {
    expect(decodeForgeDelivery({ eventType: 'pull_request_review_request' }, reviewRequestPayload())).toMatchObject({
      kind: 'start',
      pr: 42,
    })
    expect(decodeForgeDelivery({ eventType: 'pull_request_comment' }, pullCommentPayload())).toMatchObject({
      kind: 'comment',
    })
    expect(decodeForgeDelivery({ eventType: 'issue_comment' }, pullCommentPayload())).toMatchObject({
      kind: 'ignore',
    })
    expect(decodeForgeDelivery({ eventType: null }, pullCommentPayload())).toMatchObject({ kind: 'invalid' })
  })
})

describe("the test's pull_request_comment payload", () => {
  it("carries the API's Issue, Comment and User shapes, as Forgejo's IssueCommentPayload does", () => {
    const swagger = loadSwagger()
    const payload = pullCommentPayload()
    expect(checkDefinition(swagger, 'Issue', payload.issue)).toEqual([])
    expect(checkDefinition(swagger, 'Comment', payload.comment)).toEqual([])
    expect(checkDefinition(swagger, 'User', payload.sender)).toEqual([])
    expect(Object.keys(payload)).toEqual(['action', 'issue', 'comment', 'repository', 'sender', 'is_pull'])
  })
})
