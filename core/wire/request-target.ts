/**
 * The request target as the client wrote it, before any URL parser has
 * read it (docs/decisions.md, "Who may call the controller"). A URL parser
 * resolves `.` and `..` segments (their `%2e` spellings too) and reads `\`
 * as `/`, so `/webhook/forge/review-request/../../../api/…` reaches an admin
 * route while a gateway that routes on the raw prefix sent it down the
 * webhook's unauthenticated path. So a target spelled in any way a parser
 * rewrites is refused outright, and one path has one spelling. Pure.
 */

/** A segment that is `.` or `..`, in any mix of plain and percent-encoded dots. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i
/** An encoded `/` or `\`: one segment posing as two to whoever decodes it. */
const ENCODED_SEPARATOR = /%(?:2f|5c)/i

/** Why the raw request target can't be served as written, or null when it can. */
export function requestTargetProblem(target: string): string | null {
  // Origin form only: absolute form (`http://host/path`) and `*` name no path of this server.
  if (!target.startsWith('/')) return 'the request target must be a path starting with "/"'
  const query = target.indexOf('?')
  const path = query === -1 ? target : target.slice(0, query)
  if (path.includes('\\')) return 'the request path holds a backslash, which a URL parser reads as "/"'
  if (path.includes('#')) return 'the request path holds a "#"'
  if (ENCODED_SEPARATOR.test(path)) return 'the request path holds an encoded "/" or "\\" (%2F, %5C)'
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    return 'the request path holds a "." or ".." segment (%2e included), which a URL parser resolves to another path'
  }
  return null
}
