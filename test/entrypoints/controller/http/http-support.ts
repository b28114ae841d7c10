/** Shared pieces of the store, route and service account tests: a request to the app, failures as values. */
import { expect } from 'bun:test'
import type { AnyElysia } from 'elysia'
import { createMemoryKv } from '../../../../adapters/memory/kv.ts'
import { createRecordingLogger, type RecordingLogger } from '../../../../adapters/memory/logger.ts'
import { createControllerApp } from '../../../../entrypoints/controller/http/app.ts'
import { PROBLEM_CONTENT_TYPE } from '../../../../entrypoints/controller/http/problem.ts'
import { healthRoutes } from '../../../../entrypoints/controller/http/routes/health.ts'
import { runsRoutes } from '../../../../entrypoints/controller/http/routes/runs.ts'
import { settingsRoutes } from '../../../../entrypoints/controller/http/routes/settings.ts'
import { createKvRunStore } from '../../../../entrypoints/controller/usecases/run/run-store.ts'
import { createKvSettingsStore } from '../../../../entrypoints/controller/usecases/settings/settings-store.ts'

export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  )
}

/** A request to the app under test. Elysia finds the path by skipping a host, so it needs a real-looking one (`http://x/` breaks it). */
export function aRequest(path: string, init: RequestInit = {}): Request {
  return new Request(`http://localhost${path}`, init)
}

/**
 * Asserts a problem+json answer: the status, the content type, exactly the
 * four fields, the detail (equal to a string, matching a pattern), and that
 * none of `secrets` is anywhere in the body. Returns the detail.
 */
export async function expectProblem(
  response: Response,
  status: number,
  detail?: string | RegExp,
  secrets: readonly string[] = [],
): Promise<string> {
  const text = await response.text()
  expect(response.headers.get('content-type')).toBe(PROBLEM_CONTENT_TYPE)
  const body: unknown = JSON.parse(text)
  expect({ status: response.status, body }).toEqual({
    status,
    body: { type: 'about:blank', title: expect.any(String), status, detail: expect.any(String) },
  })
  for (const secret of secrets) expect(text).not.toContain(secret)
  const said = typeof body === 'object' && body !== null && 'detail' in body ? String(body.detail) : ''
  if (typeof detail === 'string') expect(said).toBe(detail)
  else if (detail !== undefined) expect(said).toMatch(detail)
  return said
}

/** The controller app with health, settings and runs on in-memory stores (no queue, no readiness checks), and `routes`. */
export function aRouteApp(routes: (logger: RecordingLogger) => AnyElysia[]) {
  const buckets = createMemoryKv()
  const logger = createRecordingLogger()
  const app = createControllerApp({
    logger,
    routes: [
      healthRoutes({ checks: [] }),
      settingsRoutes({ queue: null, settings: createKvSettingsStore({ buckets, logger }), logger }),
      runsRoutes({ queue: null, runs: createKvRunStore({ buckets, logger }), logger }),
      ...routes(logger),
    ],
  })
  return { app, logger }
}
