/**
 * The classifier's allowlist of ACP providers (`ACP_BASE_URLS`): an ACP
 * run's `acp.base_url` is where the ACP key goes, and an admin's settings
 * PUT (or anyone who can publish a run) can name any address there. With
 * the list set, a run naming another makes no provider call.
 *
 * Matching is exact after one normalisation, the URL parser's own (scheme
 * and host lower-cased, a default port dropped, dot segments resolved) plus
 * trailing slashes dropped from the path: `https://LLM.example:443/v1/`
 * matches `https://llm.example/v1`, and nothing else is loosened (another
 * path, port, query or host is another provider).
 */
import { err, ok, type Result } from '../base/result.ts'

/** The form two base URLs are compared in; null for a string that isn't a URL. */
export function normaliseBaseUrl(raw: string): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  url.hash = ''
  url.pathname = url.pathname.replace(/\/+$/, '')
  return url.href.replace(/\/+$/, '')
}

/**
 * `ACP_BASE_URLS`: https:// URLs separated by commas or whitespace, each
 * without a user or password (the settings accept no other); the
 * normalised list, or the problem naming the entry.
 */
export function parseAcpBaseUrls(name: string, raw: string): Result<string[], string> {
  const entries = raw.split(/[\s,]+/).filter((entry) => entry !== '')
  if (entries.length === 0) return err(`${name} is set but lists no URL; unset it to allow any`)
  const allowed: string[] = []
  for (const entry of entries) {
    const normal = normaliseBaseUrl(entry)
    if (normal === null) return err(`${name} lists ${JSON.stringify(entry)}, which isn't a URL`)
    const url = new URL(normal)
    if (url.protocol !== 'https:') {
      return err(`${name} lists ${JSON.stringify(entry)}: acp.base_url is https:// only, so it could never match`)
    }
    if (url.username !== '' || url.password !== '') {
      return err(`${name} lists an entry with a user or password; the provider's key belongs in the secret store`)
    }
    if (!allowed.includes(normal)) allowed.push(normal)
  }
  return ok(allowed)
}

/** Whether a run may call `baseUrl`: any when there is no list (`null`), else one on it. */
export function acpBaseUrlAllowed(allowed: readonly string[] | null, baseUrl: string): boolean {
  if (allowed === null) return true
  const normal = normaliseBaseUrl(baseUrl)
  return normal !== null && allowed.includes(normal)
}
