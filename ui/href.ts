/**
 * Which URLs the pages may make a link of (dom.ts's `h` and `external`). No
 * DOM in here, so it is tested outside a browser; the URL parser is the
 * WHATWG one a browser has.
 */

/** An origin no link of the pages can have, to see where a relative link would go. */
const THIS_SITE = 'https://this-site.invalid'

function parsedUrl(url: string, base?: string): URL | null {
  try {
    return new URL(url, base)
  } catch {
    return null
  }
}

/**
 * Whether a URL may be a link's target: http(s) anywhere, written with its
 * scheme, or a fragment or path that stays on this site. A path is judged
 * where a browser takes it, not by how it starts: a browser reads `\` as
 * `/` and drops tabs and newlines, so `/\evil` and `/\t/evil` go to the host
 * `evil`, as `//evil` does.
 */
export function isSafeHref(url: string): boolean {
  const absolute = parsedUrl(url)
  if (absolute !== null) return absolute.protocol === 'http:' || absolute.protocol === 'https:'
  if (!/^(?:#|\.{1,2}\/|\/)/.test(url)) return false
  return parsedUrl(url, `${THIS_SITE}/ui/`)?.origin === THIS_SITE
}
