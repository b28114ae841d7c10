/**
 * Names and addresses for the try-out page's "open a PR": the branch the
 * service account pushes, the commit author, and the forge's compare page.
 */

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
export function commitAuthor(user: { login: string; full_name?: string | null }, forgeDomain: string): CommitIdentity {
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
