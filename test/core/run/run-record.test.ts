import { describe, expect, it } from 'bun:test'
import {
  appendRun,
  appendRunWithin,
  decodeRunRecord,
  listRuns,
  RUN_FINISHED_MESSAGE,
  RUNS_KEPT,
  type RunOutcome,
  type RunRecord,
  type RunTrigger,
  runFinishedEvent,
  TRY_OUT_RUNS_KEPT,
  toStoredRecord,
} from '../../../core/run/run-record.ts'
import type { Row } from '../../../core/wire/types.ts'
import { aRow, aRunRecord } from '../../support/builders.ts'

const usage = { input: 1200, output: 80, cache_read: 1000, cache_write: 200 }

function storedArray(text: string): unknown[] {
  const parsed: unknown = JSON.parse(text)
  if (!Array.isArray(parsed)) throw new Error('expected the stored value to be a list')
  return parsed
}

describe('appendRun', () => {
  it('starts a list when nothing is stored yet', () => {
    expect(storedArray(appendRun(null, aRunRecord()))).toEqual([aRunRecord()])
  })

  it('puts the newest run first', () => {
    const first = appendRun(null, aRunRecord({ id: 'older' }))
    const second = appendRun(first, aRunRecord({ id: 'newer' }))
    expect(listRuns(second).runs.map((run) => run.id)).toEqual(['newer', 'older'])
  })

  it('leaves out the oldest runs past maxBytes of UTF-8, and says how many', () => {
    let stored: string | null = null
    const id = (n: number) => `run-${String(n).padStart(2, '0')}`
    for (let n = 1; n <= 10; n += 1) stored = appendRun(stored, aRunRecord({ id: id(n), detail: 'é'.repeat(100) }))
    const one = new TextEncoder().encode(
      JSON.stringify(toStoredRecord(aRunRecord({ id: 'run-11', detail: 'é'.repeat(100) }))),
    )
    // Room for exactly four runs: brackets, four entries and three commas.
    const maxBytes = 2 + 4 * one.byteLength + 3
    const appended = appendRunWithin(stored, aRunRecord({ id: 'run-11', detail: 'é'.repeat(100) }), maxBytes)
    expect(appended).toMatchObject({ kept: 4, dropped: 7, bytes: maxBytes })
    expect(new TextEncoder().encode(appended.text).byteLength).toBe(maxBytes)
    expect(listRuns(appended.text).runs.map((run) => run.id)).toEqual(['run-11', 'run-10', 'run-09', 'run-08'])
    expect(appendRunWithin(stored, aRunRecord({ id: 'run-11' }), Number.POSITIVE_INFINITY).dropped).toBe(0)
  })

  it('refuses a run that alone is over maxBytes', () => {
    expect(() => appendRunWithin(null, aRunRecord({ detail: 'd'.repeat(1000) }), 500)).toThrow(
      /the run alone is \d+ bytes/,
    )
  })

  it('drops the oldest run when the 101st is recorded', () => {
    let stored: string | null = null
    for (let n = 1; n <= RUNS_KEPT + 1; n += 1) stored = appendRun(stored, aRunRecord({ id: `run-${n}` }))
    const ids = listRuns(stored).runs.map((run) => run.id)
    expect(RUNS_KEPT).toBe(100)
    expect(ids).toHaveLength(100)
    expect(ids[0]).toBe('run-101')
    expect(ids.at(-1)).toBe('run-2')
    expect(ids).not.toContain('run-1')
  })

  it('keeps try-outs to a cap of their own, so no number of them pushes a review out', () => {
    let stored: string | null = null
    for (let n = 1; n <= RUNS_KEPT; n += 1) stored = appendRun(stored, aRunRecord({ id: `review-${n}` }))
    const tryOut = (n: number) => aRunRecord({ id: `try-${n}`, trigger: 'try-out', outcome: 'done', detail: undefined })
    for (let n = 1; n <= TRY_OUT_RUNS_KEPT + 10; n += 1) stored = appendRun(stored, tryOut(n))
    const runs = listRuns(stored).runs
    expect(TRY_OUT_RUNS_KEPT).toBe(50)
    expect(runs.filter((run) => run.trigger === 'review')).toHaveLength(RUNS_KEPT)
    const tryOuts = runs.filter((run) => run.trigger === 'try-out').map((run) => run.id)
    expect(tryOuts).toHaveLength(TRY_OUT_RUNS_KEPT)
    expect(tryOuts[0]).toBe(`try-${TRY_OUT_RUNS_KEPT + 10}`)
    expect(tryOuts).not.toContain('try-10')
    // And a review past its hundred drops the oldest review, not a try-out.
    stored = appendRun(stored, aRunRecord({ id: 'review-101' }))
    const after = listRuns(stored).runs
    expect(after.map((run) => run.id)).not.toContain('review-1')
    expect(after.filter((run) => run.trigger === 'try-out')).toHaveLength(TRY_OUT_RUNS_KEPT)
  })

  it('records a try-out against the examples without a pr, naming its labelled PRs', () => {
    const record = aRunRecord({ trigger: 'try-out', outcome: 'done', detail: undefined, labelled_prs: [12, 31] })
    delete record.pr
    expect(listRuns(appendRun(null, record)).runs).toEqual([toStoredRecord(record)])
  })

  const notALists: { name: string; stored: string }[] = [
    { name: 'an object', stored: '{"recent":[]}' },
    { name: 'a string', stored: '"runs"' },
    { name: 'null', stored: 'null' },
    { name: 'text that is not JSON', stored: '[{"id":' },
  ]

  for (const { name, stored } of notALists) {
    it(`replaces a stored value that is ${name} with a fresh list`, () => {
      expect(storedArray(appendRun(stored, aRunRecord()))).toEqual([aRunRecord()])
    })
  }

  it('keeps an entry it cannot decode as it was, counting it toward the 100', () => {
    const fromNewerBuild = { ...aRunRecord({ id: 'future' }), outcome: 'escalated', priority: 3 }
    let stored = JSON.stringify([fromNewerBuild])
    for (let n = 1; n < RUNS_KEPT; n += 1) stored = appendRun(stored, aRunRecord({ id: `run-${n}` }))
    const entries = storedArray(stored)
    expect(entries).toHaveLength(100)
    expect(entries.at(-1)).toEqual(fromNewerBuild)

    const afterOneMore = storedArray(appendRun(stored, aRunRecord({ id: 'run-100' })))
    expect(afterOneMore).toHaveLength(100)
    expect(afterOneMore).not.toContainEqual(fromNewerBuild)
  })

  it('never stores token counts, even when given rows straight from the reply', () => {
    const stored = appendRun(null, aRunRecord({ rows: [aRow({ usage }), aRow({ name: 'tests-added', usage })] }))
    expect(stored).not.toContain('usage')
    expect(stored).not.toContain('cache_read')
    expect(listRuns(stored).runs[0]?.rows).toEqual([aRow(), aRow({ name: 'tests-added' })])
  })
})

describe('listRuns', () => {
  it('reads nothing stored as no runs, without a warning', () => {
    expect(listRuns(null)).toEqual({ runs: [], warnings: [] })
  })

  it('reads an empty list as no runs', () => {
    expect(listRuns('[]')).toEqual({ runs: [], warnings: [] })
  })

  it('reads a document that is not a list as no runs, with a warning', () => {
    const listed = listRuns('{"id":"run-1"}')
    expect(listed.runs).toEqual([])
    expect(listed.warnings).toHaveLength(1)
    expect(listed.warnings[0]).toContain('list')
  })

  it('reads text that is not JSON as no runs, with a warning', () => {
    const listed = listRuns('not json')
    expect(listed.runs).toEqual([])
    expect(listed.warnings[0]).toContain('JSON')
  })

  it('leaves out an entry it cannot decode, naming it in a warning, and keeps the rest in order', () => {
    const stored = JSON.stringify([
      aRunRecord({ id: 'new' }),
      { ...aRunRecord({ id: 'future' }), outcome: 'escalated' },
      aRunRecord({ id: 'old' }),
    ])
    const listed = listRuns(stored)
    expect(listed.runs.map((run) => run.id)).toEqual(['new', 'old'])
    expect(listed.warnings).toHaveLength(1)
    expect(listed.warnings[0]).toContain('"future"')
    expect(listed.warnings[0]).toContain('outcome')
  })

  it('names an undecodable entry without an id by its position', () => {
    const listed = listRuns(JSON.stringify([aRunRecord(), 42]))
    expect(listed.runs).toHaveLength(1)
    expect(listed.warnings[0]).toContain('#2')
  })

  it('ignores fields it does not know, at the record and in rows', () => {
    const stored = JSON.stringify([{ ...aRunRecord(), cost_usd: 0.02, rows: [{ ...aRow(), usage, model: 'haiku' }] }])
    expect(listRuns(stored)).toEqual({ runs: [aRunRecord()], warnings: [] })
  })
})

describe('decodeRunRecord', () => {
  const everyOutcome: { trigger: RunTrigger; outcome: RunOutcome }[] = [
    { trigger: 'review', outcome: 'approved' },
    { trigger: 'review', outcome: 'changes-requested' },
    { trigger: 'review', outcome: 'no-verdict' },
    { trigger: 'review', outcome: 'queue-full' },
    { trigger: 'review', outcome: 'post-failed' },
    { trigger: 'try-out', outcome: 'done' },
    { trigger: 'try-out', outcome: 'failed' },
  ]

  for (const { trigger, outcome } of everyOutcome) {
    it(`decodes a ${trigger} run with outcome ${outcome} as it was stored`, () => {
      const run = toStoredRecord(aRunRecord({ trigger, outcome, detail: 'why' }))
      expect(decodeRunRecord(JSON.parse(JSON.stringify(run)))).toEqual({ ok: true, value: run })
    })
  }

  it("keeps a run's redacted count, and reads an older run without one", () => {
    const run = toStoredRecord(aRunRecord({ redacted: 3 }))
    expect(run.redacted).toBe(3)
    expect(decodeRunRecord(JSON.parse(JSON.stringify(run)))).toEqual({ ok: true, value: run })
    const older = decodeRunRecord({ ...aRunRecord(), redacted: null })
    expect(older.ok && older.value.redacted).toBeUndefined()
    expect(decodeRunRecord({ ...aRunRecord(), redacted: 'three' })).toMatchObject({ ok: false })
  })

  it('decodes a run whose PR was not read, with no head_sha, rows or overall', () => {
    const run: RunRecord = {
      id: 'q-1',
      trigger: 'review',
      repo: 'acme/widgets',
      pr: 9,
      requester: 'bob',
      started_unix: 1_700_000_000,
      finished_unix: 1_700_000_000,
      outcome: 'queue-full',
      detail: 'every run place and waiting place was taken',
    }
    expect(decodeRunRecord(JSON.parse(JSON.stringify(run)))).toEqual({ ok: true, value: run })
  })

  it('reads a null optional field as absent', () => {
    const decoded = decodeRunRecord({ ...aRunRecord(), head_sha: null, review_url: null })
    expect(decoded.ok).toBe(true)
    expect(decoded.ok && 'head_sha' in decoded.value).toBe(false)
    expect(decoded.ok && 'review_url' in decoded.value).toBe(false)
  })

  const undecodable: { name: string; raw: unknown; mentions: string }[] = [
    { name: 'an unknown outcome', raw: { ...aRunRecord(), outcome: 'escalated' }, mentions: 'outcome' },
    { name: 'a try-out outcome on a review', raw: { ...aRunRecord(), outcome: 'done' }, mentions: 'done' },
    {
      name: 'a review outcome on a try-out',
      raw: { ...aRunRecord(), trigger: 'try-out', outcome: 'approved' },
      mentions: 'approved',
    },
    { name: 'an unknown trigger', raw: { ...aRunRecord(), trigger: 'schedule' }, mentions: 'trigger' },
    { name: 'a missing repo', raw: { ...aRunRecord(), repo: undefined }, mentions: 'repo' },
    { name: 'a pr as a string', raw: { ...aRunRecord(), pr: '7' }, mentions: 'pr' },
    {
      name: 'a row with an unknown verdict',
      raw: { ...aRunRecord(), rows: [{ ...aRow(), verdict: 'maybe' }] },
      mentions: 'rows.0.verdict',
    },
    { name: 'a list', raw: [aRunRecord()], mentions: 'entry' },
  ]

  for (const { name, raw, mentions } of undecodable) {
    it(`refuses ${name}, naming what does not fit`, () => {
      const decoded = decodeRunRecord(raw)
      expect(decoded.ok).toBe(false)
      expect(decoded.ok ? '' : decoded.error).toContain(mentions)
    })
  }
})

describe('toStoredRecord', () => {
  it('drops the detail of a try-out that is done', () => {
    expect('detail' in toStoredRecord(aRunRecord({ trigger: 'try-out', outcome: 'done', detail: 'stray' }))).toBe(false)
  })

  const verdicts: RunOutcome[] = ['approved', 'changes-requested']
  for (const outcome of verdicts) {
    it(`keeps the detail of a run with outcome ${outcome}: a refused commit status`, () => {
      const detail = "the commit status couldn't be set (pending, success): the forge answered 403"
      expect(toStoredRecord(aRunRecord({ outcome, detail })).detail).toBe(detail)
    })
  }

  it('keeps the detail of an outcome that carries one', () => {
    const detail = 'classification "no-secrets" timed out; the forge answered 502'
    expect(toStoredRecord(aRunRecord({ outcome: 'post-failed', detail })).detail).toBe(detail)
  })

  it('strips usage from every row and keeps the rest of the row, errors included', () => {
    const failed = aRow({
      verdict: null,
      certainty: null,
      reason: null,
      counted: false,
      error: { kind: 'timeout', detail: 'after 180 s' },
    })
    const rowsFromReply: Row[] = [{ ...failed, usage }]
    const stored = toStoredRecord(aRunRecord({ rows: rowsFromReply }))
    expect(stored.rows).toEqual([failed])
    expect(stored.rows?.[0] && 'usage' in stored.rows[0]).toBe(false)
  })

  it('leaves out optional fields given as undefined, as a caller without types could pass them', () => {
    const loose: Record<string, unknown> = { ...aRunRecord(), head_sha: undefined, review_url: undefined }
    const stored = toStoredRecord(loose as RunRecord)
    expect(Object.keys(stored)).not.toContain('head_sha')
    expect(Object.keys(stored)).not.toContain('review_url')
  })
})

describe('runFinishedEvent', () => {
  it('carries the run fields with rows as a JSON string and no token counts', () => {
    const run = aRunRecord({
      started_unix: 1_700_000_000,
      finished_unix: 1_700_000_042,
      outcome: 'changes-requested',
      overall: 'request-changes',
      rows: [aRow({ fails: true, usage })],
    })
    const event = runFinishedEvent(run)
    expect(event).toEqual({
      id: 'run-1',
      trigger: 'review',
      repo: 'acme/widgets',
      pr: 7,
      requester: 'alice',
      head_sha: 'a'.repeat(40),
      started_unix: 1_700_000_000,
      finished_unix: 1_700_000_042,
      outcome: 'changes-requested',
      overall: 'request-changes',
      review_url: 'https://forge.example/acme/widgets/pulls/7#issuecomment-1',
      rows: JSON.stringify([aRow({ fails: true })]),
    })
  })

  it('carries the detail and leaves out rows when the classifier never answered', () => {
    const event = runFinishedEvent(
      aRunRecord({
        outcome: 'no-verdict',
        detail: 'classifier not running',
        rows: undefined,
        overall: undefined,
        review_url: undefined,
      }),
    )
    expect(event.detail).toBe('classifier not running')
    expect('rows' in event).toBe(false)
  })

  it('is logged under the message the spec names', () => {
    expect(RUN_FINISHED_MESSAGE).toBe('review classifier run finished')
  })
})
