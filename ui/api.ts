/**
 * The controller's API as the pages call it: same origin, paths relative to
 * the page (so a gateway may mount the whole site under a prefix), nothing
 * sent for identity (the gateway adds it). Every failure comes back as a
 * problem with the route's own `detail`, for the page to show as it is.
 *
 * A 2xx answer is checked against the route's own schema in
 * core/wire/page-schemas.ts before the page reads it: a controller restarted with
 * another build while the page stayed open may answer in another shape.
 */
import { fitsSchema } from '../core/wire/decode.ts'
import { UiConfigSchema } from '../core/wire/page-schemas.ts'
import type { UiConfig } from '../core/wire/types.ts'

export type Problem = { status: number; detail: string }
export type Answer<T> = { ok: true; status: number; value: T } | { ok: false; problem: Problem }

/** Whether an answer's body is what the page reads: {@link fitsSchema} of the route's schema. */
export type Fits<T> = (value: unknown) => value is T

/** What a 2xx answer that doesn't fit its schema says. */
export const UNREADABLE_ANSWER =
  "the controller's answer isn't in the shape this page reads (was the controller updated? reload the page)"

/** `api/...` relative to the site root the page is served under (`/ui/` → `/`). */
export function apiUrl(path: string, query: Record<string, string> = {}): string {
  const url = new URL(`../${path}`, document.baseURI)
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value)
  return url.toString()
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

async function call<T>(method: 'GET' | 'POST', url: string, fits: Fits<T>, body?: unknown): Promise<Answer<T>> {
  let response: Response
  try {
    response = await fetch(url, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
    })
  } catch {
    return { ok: false, problem: { status: 0, detail: "the controller didn't answer (is it running?)" } }
  }
  let parsed: unknown = null
  try {
    parsed = await response.json()
  } catch {
    parsed = null
  }
  if (response.ok) {
    if (fits(parsed)) return { ok: true, status: response.status, value: parsed }
    return { ok: false, problem: { status: response.status, detail: UNREADABLE_ANSWER } }
  }
  const detail =
    isRecord(parsed) && typeof parsed.detail === 'string'
      ? parsed.detail
      : `the controller answered ${response.status} ${response.statusText}`.trim()
  return { ok: false, problem: { status: response.status, detail } }
}

export function getJson<T>(path: string, fits: Fits<T>, query: Record<string, string> = {}): Promise<Answer<T>> {
  return call('GET', apiUrl(path, query), fits)
}

export function postJson<T>(path: string, body: unknown, fits: Fits<T>): Promise<Answer<T>> {
  return call('POST', apiUrl(path), fits, body)
}

/** The page's own settings (`config.json` beside it): where the forge's web pages are. */
export async function loadConfig(): Promise<UiConfig> {
  try {
    const response = await fetch(new URL('config.json', document.baseURI), { cache: 'no-store' })
    const value: unknown = await response.json()
    if (fitsSchema(UiConfigSchema)(value)) return { forge_url: value.forge_url }
  } catch {
    // The pages work without links to the forge.
  }
  return { forge_url: null }
}
