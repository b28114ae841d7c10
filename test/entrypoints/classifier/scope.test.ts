/**
 * The classifier asks only the rules some changed file is in scope of
 * (issue 31): an out-of-scope rule opens no model session, a run with none in
 * scope opens none at all, and a scoped rule's question names its files
 * after the shared prefix, which stays byte for byte the same.
 */
import { describe, expect, it } from 'bun:test'
import { createFixedClock } from '../../../adapters/memory/clock.ts'
import { createRecordingLogger } from '../../../adapters/memory/logger.ts'
import { createRecordingMetrics } from '../../../adapters/memory/metrics.ts'
import { answered, createScriptedModelRuntime } from '../../../adapters/memory/model-runtime.ts'
import { createInlineRedactor } from '../../../adapters/memory/redactor.ts'
import { createMemorySecretStore } from '../../../adapters/memory/secret-store.ts'
import { RUNTIME_KEY_SECRETS } from '../../../core/settings/service-account.ts'
import type { RunReply, RunRequest } from '../../../core/wire/types.ts'
import { createClassifier } from '../../../entrypoints/classifier/service.ts'
import { createSessionLimiter } from '../../../entrypoints/classifier/session-limiter.ts'
import { aClassification, aRunRequest } from '../../support/builders.ts'

const FAIL = '{"verdict":"no-match","certainty":95,"reason":"It does not hold."}'

function setup() {
  const claude = createScriptedModelRuntime(() => answered(FAIL))
  const classifier = createClassifier({
    runtimes: { 'api-key': claude, acp: createScriptedModelRuntime(() => answered(FAIL)), subscription: claude },
    secrets: createMemorySecretStore({ [RUNTIME_KEY_SECRETS['api-key'].path]: { api_key: 'sk-ant-scope-test-1a2b' } }),
    metrics: createRecordingMetrics(),
    logger: createRecordingLogger(),
    clock: createFixedClock(),
    limiter: createSessionLimiter(4),
    classificationTimeoutMs: 2_000,
    contextBudgetBytes: 600_000,
    redactor: createInlineRedactor(),
  })
  const handle = (request: Partial<RunRequest>): Promise<RunReply> =>
    classifier.handle(JSON.stringify(aRunRequest(request)))
  return { claude, handle }
}

function fileDiff(path: string): string {
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`
}

const DIFF = fileDiff('app.py') + fileDiff('db/migrations/002.sql') + fileDiff('db/migrations/legacy/001.sql')

describe('the classifier and scoped rules', () => {
  it('sends no secret a file name held: the question withholds that name, as the redaction took it out of the diff', async () => {
    const { claude, handle } = setup()
    const token = `ghp_${'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'}`
    await handle({
      diff: fileDiff(`keys/${token}.txt`) + fileDiff('app.py'),
      classifications: [aClassification({ name: 'all', paths: ['**'] })],
    })
    const [call] = claude.calls
    expect(call?.question).toContain('- "app.py"')
    expect(call?.question).toContain('(a file whose name held a secret: its name is withheld)')
    expect(JSON.stringify(claude.calls)).not.toContain(token)
  })

  it('opens no session for a rule out of scope, and gives it the not-applicable row', async () => {
    const { claude, handle } = setup()
    const reply = await handle({
      diff: DIFF,
      classifications: [
        aClassification({ name: 'python', paths: ['*.py'] }),
        aClassification({ name: 'docs', paths: ['docs/**', '*.md'] }),
      ],
    })
    expect(claude.opens).toHaveLength(1)
    expect(claude.calls.map((call) => call.question)).toEqual([expect.stringContaining('Name: python')])
    expect(reply.rows.map((row) => [row.name, row.in_scope, row.verdict, row.certainty])).toEqual([
      ['python', true, 'no-match', 95],
      ['docs', false, 'not-applicable', null],
    ])
    expect(reply.rows[1]?.reason).toBe('No changed file matches its paths.')
    expect(reply.overall).toBe('request-changes')
  })

  it('answers a run with every rule out of scope with an approval and no session at all', async () => {
    const { claude, handle } = setup()
    const reply = await handle({
      diff: DIFF,
      classifications: [aClassification({ name: 'docs', paths: ['docs/**'] })],
    })
    expect(claude.opens).toHaveLength(0)
    expect(reply).toMatchObject({ ok: true, overall: 'approve', rows: [{ name: 'docs', in_scope: false }] })
  })

  it('names the in-scope files in the question, and keeps the shared prefix the same for every rule', async () => {
    const { claude, handle } = setup()
    await handle({
      diff: DIFF,
      classifications: [
        aClassification({ name: 'everything' }),
        aClassification({ name: 'migrations', paths: ['db/migrations/**', '!db/migrations/legacy/**'] }),
      ],
    })
    const [unscoped, scoped] = claude.calls
    expect(unscoped?.context).toBe(scoped?.context as string)
    expect(unscoped?.question).not.toContain('changed files only')
    expect(scoped?.question).toContain('- "db/migrations/002.sql"')
    expect(scoped?.question).not.toContain('legacy')
  })

  it("doesn't let an advisory rule's failure request changes", async () => {
    const { handle } = setup()
    const reply = await handle({ diff: DIFF, classifications: [aClassification({ name: 'soft', mode: 'advisory' })] })
    expect(reply.overall).toBe('approve')
    expect(reply.rows[0]).toMatchObject({ mode: 'advisory', fails: true, blocks: false })
  })
})
