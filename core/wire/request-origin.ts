/**
 * Where a request says it is going and where it comes from, as the
 * controller and the launcher's proxy check them (docs/decisions.md, "Who
 * may call the controller"): the `Host` a browser was pointed at, the
 * `Origin` and `Sec-Fetch-Site` of the page that sent it, and the body's
 * content type. Pure: the callers pass the header values in.
 */

/** The names a loopback address goes by in a `Host` header: IPv4, the name, IPv6. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]']

/** A `Host` header (or `X-Forwarded-Host`) as its host name, lowercased (IPv6 in brackets), and its port (80 when left out). */
export function parseAuthority(authority: string): { hostname: string; port: number } | null {
  // Only a host and a port: anything a URL would read as user info, a path, a query or a fragment is no Host.
  if (authority === '' || /[\s/\\?#@]/.test(authority)) return null
  let parsed: URL
  try {
    parsed = new URL(`http://${authority}`)
  } catch {
    return null
  }
  return { hostname: parsed.hostname, port: parsed.port === '' ? 80 : Number(parsed.port) }
}

/** Whether a listening address (`HOST`) is a loopback one: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare)
}

/** A host name as {@link parseAuthority} spells it (lowercased, IPv6 in brackets), or null when it isn't one. */
export function normalizeHostname(name: string): string | null {
  const trimmed = name.trim()
  const bracketed = trimmed.includes(':') && !trimmed.startsWith('[') ? `[${trimmed}]` : trimmed
  const parsed = parseAuthority(bracketed)
  // A port, or anything the URL parser rewrote (a percent sign, a trailing dot aside), is not a bare host name.
  return parsed === null || parsed.hostname !== bracketed.toLowerCase() ? null : parsed.hostname
}

/** Whether the `Host` header's host name is one of `allowed` (host names as {@link normalizeHostname} spells them); any port. */
export function isAllowedHost(authority: string, allowed: readonly string[]): boolean {
  const parsed = parseAuthority(authority)
  return parsed !== null && allowed.includes(parsed.hostname)
}

/**
 * Whether the page that sent a request belongs to another site than the
 * one it was sent to (`ownHost`, the `Host` the browser used: the request's
 * own, or `X-Forwarded-Host` where a proxy set it). `Sec-Fetch-Site:
 * cross-site` says so outright; an `Origin` that is present says so when its
 * host and port differ from `ownHost`'s, and so does one that isn't an http
 * or https origin at all (`null` from a sandboxed frame or a file). A
 * request with neither header comes from no web page (curl, the forge's
 * webhook) and is not cross-site. The scheme isn't compared: a gateway that
 * ends TLS forwards plain http.
 */
export function isCrossSite(origin: string | null, fetchSite: string | null, ownHost: string): boolean {
  if (fetchSite?.trim().toLowerCase() === 'cross-site') return true
  if (origin === null) return false
  let from: URL
  try {
    from = new URL(origin.trim())
  } catch {
    return true
  }
  if (from.protocol !== 'http:' && from.protocol !== 'https:') return true
  if (parseAuthority(ownHost) === null) return true
  // Read with the Origin's scheme, so a default port left out on one side and written on the other still matches.
  return new URL(`${from.protocol}//${ownHost}`).host !== from.host
}

/** Whether a `Content-Type` is JSON's: `application/json`, with any parameters (`; charset=utf-8`). */
export function isJsonContentType(contentType: string | null): boolean {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json'
}
