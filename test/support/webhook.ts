/**
 * A Forgejo `pull_request_review_request` delivery as Forgejo v15 sends it
 * (docs/forgejo.md §1.2, §1.4): the full header set, a pretty-printed body (two
 * spaces, Go field order, `<`, `>` and `&` escaped as `\u003c` and so on),
 * and the signature over exactly those bytes.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto'

export type DeliveryOptions = {
  action?: 'review_requested' | 'review_request_removed' | string
  /** The login in `requested_reviewer`; default `review-classifier`. */
  reviewer?: string
  /** Logins in `pull_request.requested_reviewers`; default: just `reviewer`. */
  requestedReviewers?: string[]
  owner?: string
  repo?: string
  pr?: number
  headSha?: string
  title?: string
  /** Who requested (or removed) the review; default `alice`. */
  sender?: string
  /** Default `https://forge.example`. */
  forgeUrl?: string
}

export type SignOptions = {
  secret: string
  /** `all` as Forgejo sends (Forgejo, Gitea, Gogs and GitHub names); `gitea` only the `X-Gitea-*` ones. */
  headerSet?: 'all' | 'gitea'
  /** Overrides the signature headers' value (a forged one); `null` leaves them out. */
  signature?: string | null
  /** The event type header's value; default `pull_request_review_request`, `null` leaves it out. */
  eventType?: string | null
  /** Default `http://localhost/webhook/forge/review-request`. */
  url?: string
}

export function user(login: string, forgeUrl: string, id: number): Record<string, unknown> {
  // Webhook user objects are built without a viewer: placeholder email, not admin, not active.
  const noreply = `${login.toLowerCase()}@noreply.${new URL(forgeUrl).host}`
  return {
    id,
    login,
    login_name: '',
    source_id: 0,
    full_name: '',
    email: noreply,
    avatar_url: `${forgeUrl}/avatars/${id}`,
    html_url: `${forgeUrl}/${login}`,
    language: '',
    is_admin: false,
    last_login: '0001-01-01T00:00:00Z',
    created: '2026-06-01T00:00:00Z',
    restricted: false,
    active: false,
    prohibit_login: false,
    location: '',
    pronouns: '',
    website: '',
    description: '',
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: login,
  }
}

/** The payload object, keys in Forgejo's order. */
export function reviewRequestPayload(options: DeliveryOptions = {}): Record<string, unknown> {
  const forgeUrl = options.forgeUrl ?? 'https://forge.example'
  const owner = options.owner ?? 'acme'
  const name = options.repo ?? 'widgets'
  const pr = options.pr ?? 42
  const reviewer = options.reviewer ?? 'review-classifier'
  const sender = options.sender ?? 'alice'
  const headSha = options.headSha ?? createHash('sha1').update(`head ${owner}/${name}#${pr}`).digest('hex')
  const fullName = `${owner}/${name}`
  const prUrl = `${forgeUrl}/${fullName}/pulls/${pr}`
  const repoBrief = { id: 12, full_name: fullName, default_branch: 'main' }
  return {
    action: options.action ?? 'review_requested',
    number: pr,
    pull_request: {
      id: 317,
      url: prUrl,
      number: pr,
      user: user('alice', forgeUrl, 7),
      title: options.title ?? 'Add timezone to timestamps <UTC> & friends',
      body: 'Every timestamp carries a zone now.',
      labels: [],
      milestone: null,
      assignee: null,
      assignees: null,
      requested_reviewers: (options.requestedReviewers ?? [reviewer]).map((login, i) => user(login, forgeUrl, 31 + i)),
      requested_reviewers_teams: [],
      state: 'open',
      draft: false,
      is_locked: false,
      comments: 0,
      review_comments: 0,
      additions: 12,
      deletions: 3,
      changed_files: 2,
      html_url: prUrl,
      diff_url: `${prUrl}.diff`,
      patch_url: `${prUrl}.patch`,
      mergeable: true,
      merged: false,
      merged_at: null,
      merge_commit_sha: null,
      merged_by: null,
      allow_maintainer_edit: false,
      base: {
        label: 'main',
        ref: 'main',
        sha: '9f1c0ad2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8',
        repo_id: 12,
        repo: repoBrief,
      },
      head: { label: 'tz-fix', ref: 'tz-fix', sha: headSha, repo_id: 12, repo: repoBrief },
      merge_base: '9f1c0ad2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8',
      due_date: null,
      created_at: '2026-06-30T10:00:00Z',
      updated_at: '2026-06-30T10:05:00Z',
      closed_at: null,
      pin_order: 0,
      flow: 0,
    },
    requested_reviewer: user(reviewer, forgeUrl, 31),
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
    sender: user(sender, forgeUrl, 7),
    commit_id: '',
    review: null,
  }
}

/** JSON the way Go's encoder writes it with indentation: `<`, `>`, `&` as `\u00XX`. */
export function goJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
}

/** Lowercase hex HMAC-SHA256 of the body's bytes, no prefix (`X-Forgejo-Signature`). */
export function signBody(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

/** The header set of one delivery of `body`. */
export function deliveryHeaders(body: string, sign: SignOptions): Headers {
  const headerSet = sign.headerSet ?? 'all'
  const signature = sign.signature === undefined ? signBody(sign.secret, body) : sign.signature
  const eventType = sign.eventType === undefined ? 'pull_request_review_request' : sign.eventType
  const delivery = randomUUID()
  const prefixes = headerSet === 'all' ? ['Forgejo', 'Gitea', 'Gogs', 'GitHub'] : ['Gitea']
  const headers = new Headers({ 'Content-Type': 'application/json' })
  for (const prefix of prefixes) {
    headers.set(`X-${prefix}-Event`, 'pull_request')
    if (eventType !== null) headers.set(`X-${prefix}-Event-Type`, eventType)
    headers.set(`X-${prefix}-Delivery`, delivery)
    if (signature !== null && prefix !== 'GitHub') headers.set(`X-${prefix}-Signature`, signature)
  }
  if (headerSet === 'all' && signature !== null) {
    headers.set('X-Hub-Signature-256', `sha256=${signature}`)
    headers.set('X-Hub-Signature', `sha1=${createHmac('sha1', sign.secret).update(body).digest('hex')}`)
  }
  return headers
}

/** A signed delivery as a `Request`, ready for `app.handle`. */
export function signedDelivery(sign: SignOptions, payload: DeliveryOptions | string = {}): Request {
  const body = typeof payload === 'string' ? payload : goJson(reviewRequestPayload(payload))
  return new Request(sign.url ?? 'http://localhost/webhook/forge/review-request', {
    method: 'POST',
    headers: deliveryHeaders(body, sign),
    body,
  })
}
