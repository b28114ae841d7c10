/**
 * A Forgejo `pull_request_comment` delivery as Forgejo v15 sends it
 * (docs/forgejo.md §1.5): `IssueCommentPayload` (`modules/structs/hook.go`:
 * action, issue, comment, changes on an edit, repository, sender, is_pull),
 * the coarse `X-Forgejo-Event: issue_comment`, and the signature over the
 * pretty-printed body. Its `issue`, `comment` and `sender` are the API's
 * `Issue`, `Comment` and `User` (checked against swagger.v1.json by
 * test/core/review/comment-webhook.test.ts).
 */
import { deliveryHeaders, goJson, type SignOptions, user } from './webhook.ts'

export type CommentDeliveryOptions = {
  action?: 'created' | 'edited' | 'deleted' | string
  owner?: string
  repo?: string
  pr?: number
  commentId?: number
  body?: string
  /** Who wrote the comment; default `maria`. */
  commenter?: string
  /** The PR's author; default `alice`. */
  author?: string
  /** `false`: a comment on an issue. */
  isPull?: boolean
  /** Default `https://forge.example`. */
  forgeUrl?: string
}

const CREATED = '2026-06-30T10:20:00Z'

/** The payload object, keys in Forgejo's order. */
export function pullCommentPayload(options: CommentDeliveryOptions = {}): Record<string, unknown> {
  const forgeUrl = options.forgeUrl ?? 'https://forge.example'
  const owner = options.owner ?? 'acme'
  const name = options.repo ?? 'widgets'
  const pr = options.pr ?? 42
  const commenter = options.commenter ?? 'maria'
  const fullName = `${owner}/${name}`
  const isPull = options.isPull ?? true
  const page = `${forgeUrl}/${fullName}/${isPull ? 'pulls' : 'issues'}/${pr}`
  const commentId = options.commentId ?? 9001
  const action = options.action ?? 'created'
  return {
    action,
    issue: {
      id: 317,
      url: `${forgeUrl}/api/v1/repos/${fullName}/issues/${pr}`,
      html_url: page,
      number: pr,
      user: user(options.author ?? 'alice', forgeUrl, 7),
      original_author: '',
      original_author_id: 0,
      title: 'Add timezone to timestamps',
      body: 'Every timestamp carries a zone now.',
      ref: '',
      assets: [],
      labels: [],
      milestone: null,
      assignee: null,
      assignees: null,
      state: 'open',
      is_locked: false,
      comments: 1,
      created_at: '2026-06-30T10:00:00Z',
      updated_at: CREATED,
      closed_at: null,
      due_date: null,
      pull_request: isPull ? { merged: false, merged_at: null, draft: false, html_url: page } : null,
      repository: { id: 12, name, owner, full_name: fullName },
      pin_order: 0,
    },
    comment: {
      id: commentId,
      html_url: `${page}#issuecomment-${commentId}`,
      pull_request_url: isPull ? page : '',
      issue_url: isPull ? '' : page,
      user: user(commenter, forgeUrl, 11),
      original_author: '',
      original_author_id: 0,
      body: options.body ?? '@review-classifier waive datetime: the timestamps here are parsed, not made',
      assets: [],
      created_at: CREATED,
      updated_at: CREATED,
    },
    ...(action === 'edited' ? { changes: { body: { from: 'before' } } } : {}),
    repository: {
      id: 12,
      owner: { id: 3, login: owner, username: owner },
      name,
      full_name: fullName,
      private: true,
      html_url: `${forgeUrl}/${fullName}`,
      clone_url: `${forgeUrl}/${fullName}.git`,
      default_branch: 'main',
      permissions: { admin: false, push: true, pull: true },
    },
    sender: user(commenter, forgeUrl, 11),
    is_pull: isPull,
  }
}

/** A signed `pull_request_comment` delivery as a `Request` (default URL `http://localhost/webhook/forge`). */
export function signedCommentDelivery(
  sign: Omit<SignOptions, 'eventType'> & { eventType?: string | null },
  payload: CommentDeliveryOptions | string = {},
): Request {
  const body = typeof payload === 'string' ? payload : goJson(pullCommentPayload(payload))
  const isPull = typeof payload === 'string' || payload.isPull !== false
  const headers = deliveryHeaders(body, {
    ...sign,
    eventType: sign.eventType === undefined ? (isPull ? 'pull_request_comment' : 'issue_comment') : sign.eventType,
  })
  for (const prefix of ['Forgejo', 'Gitea', 'Gogs', 'GitHub']) {
    if (headers.has(`X-${prefix}-Event`)) headers.set(`X-${prefix}-Event`, 'issue_comment')
  }
  return new Request(sign.url ?? 'http://localhost/webhook/forge', { method: 'POST', headers, body })
}
