/** Shared pieces of the store, route and service account tests: a run record, a request to the app, failures as values. */
import type { RunRecord } from '../../../core/run-record.ts'
import { aRow } from '../../builders.ts'

export function aRunRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 'run-1',
    trigger: 'review',
    repo: 'acme/widgets',
    pr: 7,
    requester: 'alice',
    head_sha: 'a'.repeat(40),
    started_unix: 1_767_225_600,
    finished_unix: 1_767_225_660,
    outcome: 'approved',
    rows: [aRow()],
    overall: 'approve',
    review_url: 'https://forge.example/acme/widgets/pulls/7#issuecomment-1',
    ...overrides,
  }
}

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
