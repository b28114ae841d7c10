/**
 * The try-out page's "open a PR", its pure parts: the request body, the
 * branch the service account pushes, the commit author and message, and
 * the forge's compare page.
 */

import { err, ok, type Result } from '../base/result.ts'
import { oneLine } from '../base/text.ts'
import { SERVICE_ACCOUNT } from '../settings/service-account.ts'
import { isRecord, parseJsonText } from '../wire/decode.ts'
import { parseRepoValue } from '../wire/repo.ts'
import type { Classification, RepoRef } from '../wire/types.ts'
import { type PrLabels, validateLabels } from './examples-merge.ts'
import { sameClassification } from './rules-check.ts'
import { formatRulesProblems, validateClassifications } from './rules-file.ts'
import { formatSourceProblems } from './source-tree.ts'

export const BRANCH_PREFIX = 'review-classifier/'

/** Forgejo refuses branch names over 100 characters (docs/forgejo.md §3.6). */
const MAX_BRANCH_LENGTH = 100
const HEX8 = /^[0-9a-f]{8}$/
const FALLBACK_LOGIN = 'user'

/**
 * `review-classifier/<login>-<hex8>`. `hex8` comes from the caller's random
 * source; anything but 8 lowercase hex digits is a bug there, so it throws.
 *
 * The login keeps its case (it is how the user is named on the forge and
 * git refs are case-sensitive anyway), but characters git or a URL would
 * trip over become `-`: only `A-Z a-z 0-9 . _ -` are kept, runs of dots
 * collapse (git forbids `..`), and leading dots or dashes go (git forbids a
 * component starting with `.`). Forgejo logins already fit that set, so in
 * practice the login comes through unchanged. The component always ends in
 * hex digits, so git's rules on a trailing `.` or `.lock` can't bite.
 */
export function branchName(login: string, hex8: string): string {
  if (!HEX8.test(hex8)) throw new RangeError(`branchName needs 8 lowercase hex digits, got ${JSON.stringify(hex8)}`)
  const room = MAX_BRANCH_LENGTH - BRANCH_PREFIX.length - 1 - hex8.length
  const safe = login
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+/, '')
    .slice(0, room)
  return `${BRANCH_PREFIX}${safe === '' ? FALLBACK_LOGIN : safe}-${hex8}`
}

/**
 * The address Forgejo itself gives an account that keeps its email private
 * (docs/forgejo.md §5.4): the login lowercased, `@noreply.`, the forge domain.
 * A `:port` is dropped, since Forgejo's DOMAIN setting never has one but a
 * host taken from the forge URL may.
 */
export function noreplyAddress(login: string, forgeDomain: string): string {
  const domain = forgeDomain.replace(/:\d+$/, '')
  return `${login.toLowerCase()}@noreply.${domain}`
}

export type CommitIdentity = { name: string; email: string }

/** The commit author for a forge user: their full name (or login when blank) and noreply address. */
export function commitAuthor(
  user: { login: string; full_name?: string | null | undefined },
  forgeDomain: string,
): CommitIdentity {
  const fullName = user.full_name?.trim() ?? ''
  return { name: fullName === '' ? user.login : fullName, email: noreplyAddress(user.login, forgeDomain) }
}

/**
 * The forge page that offers to open a PR from `head` into `base`
 * (docs/forgejo.md §4): `{root}{owner}/{repo}/compare/{base}...{head}`, each
 * path segment escaped, branch names escaped segment by segment so their
 * `/` stays a path separator.
 */
export function compareUrl(rootUrl: string, owner: string, repo: string, base: string, head: string): string {
  const root = rootUrl.endsWith('/') ? rootUrl : `${rootUrl}/`
  return `${root}${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/compare/${escapeBranch(base)}...${escapeBranch(head)}`
}

function escapeBranch(branch: string): string {
  return branch.split('/').map(encodeURIComponent).join('/')
}

export type OpenPrRequest = {
  repo: RepoRef
  classifications: Classification[]
  /** Labels for the examples file, merged by PR number in the same commit; left out (or empty): none. */
  labels?: PrLabels[]
}

/**
 * The body as the try-out POST takes its repo and classifications, and
 * the optional `labels` for the examples file, checked with the file's own
 * rules. Other fields are ignored, as docs/decisions.md's wire formats read
 * every body.
 */
export function parseOpenPrBody(text: string): Result<OpenPrRequest, string> {
  const parsed = parseJsonText(text, 'the body')
  if (!parsed.ok) return err("the body isn't JSON: send { repo, classifications } as a JSON object")
  const body = parsed.value
  if (!isRecord(body)) return err('the body must be a JSON object { repo, classifications }')
  if (!('repo' in body)) return err('missing field "repo"')
  if (!('classifications' in body)) return err('missing field "classifications"')
  const repo = parseRepoValue(body.repo)
  if (!repo.ok) return repo
  const classifications = validateClassifications(body.classifications, 'the body')
  if (!classifications.ok) return err(formatRulesProblems(classifications.error))
  const request = { repo: repo.value, classifications: classifications.value }
  const labels = body.labels
  if (labels === undefined || labels === null || (Array.isArray(labels) && labels.length === 0)) return ok(request)
  const checked = validateLabels(labels)
  if (!checked.ok) return err(formatSourceProblems(checked.error))
  return ok({ ...request, labels: checked.value })
}

/** Git's advice for a commit subject; a longer one is shortened to a count. */
const SUBJECT_MAX_CHARS = 72

/**
 * `Add review classifier rules: a, b` (or `Update`, or `Add and update`),
 * then who wrote them and where, then which names are new and which replaced,
 * and which PRs were labelled; labels alone: `Label PRs #12, #31 for the review classifier`.
 */
export function commitMessage(
  added: readonly string[],
  updated: readonly string[],
  author: { login: string; name: string },
  labelled: readonly number[] = [],
): string {
  const verb = added.length > 0 && updated.length > 0 ? 'Add and update' : added.length > 0 ? 'Add' : 'Update'
  const names = [...added, ...updated].map(oneLine)
  const listed = `${verb} review classifier rules: ${names.join(', ')}`
  const counted = `${verb} ${names.length} review classifier rule${names.length === 1 ? '' : 's'}`
  const labelsOnly = names.length === 0
  const prs = labelled.map((pr) => `#${pr}`)
  const labelSubject = `Label ${prs.length === 1 ? 'PR' : 'PRs'} ${prs.join(', ')} for the review classifier`
  const labelCounted = `Label ${labelled.length} PRs for the review classifier`
  const subject = labelsOnly
    ? labelSubject.length <= SUBJECT_MAX_CHARS
      ? labelSubject
      : labelCounted
    : listed.length <= SUBJECT_MAX_CHARS
      ? listed
      : counted
  const who = author.name === author.login ? author.login : `${oneLine(author.name)} (${author.login})`
  const lines = [
    subject,
    '',
    `Written by ${who} on the swarm UI's try-out page, and pushed by the ${SERVICE_ACCOUNT.login} service account.`,
    '',
    ...(added.length > 0 ? [`Added: ${added.map(oneLine).join(', ')}`] : []),
    ...(updated.length > 0 ? [`Updated: ${updated.map(oneLine).join(', ')}`] : []),
    ...(labelled.length > 0 ? [`Labelled: ${labelled.map((pr) => `PR #${pr}`).join(', ')}`] : []),
  ]
  return `${lines.join('\n')}\n`
}

/** Which of the classifications are new to the file and which replace an entry (the unchanged ones are neither). */
export function changedNames(
  existing: readonly Classification[],
  additions: readonly Classification[],
): { added: string[]; updated: string[] } {
  const added: string[] = []
  const updated: string[] = []
  for (const addition of additions) {
    const current = existing.find((entry) => entry.name === addition.name)
    if (current === undefined) added.push(addition.name)
    else if (!sameClassification(current, addition)) updated.push(addition.name)
  }
  return { added, updated }
}
