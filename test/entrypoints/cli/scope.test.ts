/**
 * The CLI and scoped rules (issue 31): `validate` shows paths and mode,
 * `prompt` says which rules it would not ask and why, and `check` scopes the
 * rules by the local diff, asking the model nothing for a rule out of scope.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { runCli } from '../../../entrypoints/cli.ts'
import { hermeticGit } from '../../support/git-repo.ts'
import { localScriptedModel } from '../../support/scripted-model.ts'

setDefaultTimeout(60_000)

const SCOPED_YAML = `classifications:
  - name: python
    description: Every datetime carries a zone.
    polarity: positive
    threshold: 80
    paths: ["*.py"]
  - name: migrations
    description: Every new migration has a working down step.
    polarity: positive
    threshold: 80
    paths: ["db/migrations/**", "!db/migrations/legacy/**"]
  - name: style
    description: The code reads well.
    polarity: positive
    threshold: 80
    mode: advisory
`

const PY_DIFF = 'diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-a\n+b\n'

let root = ''
const { env: gitEnv, git, commit } = hermeticGit(() => root)
const NO_MATCH = '{"verdict":"no-match","certainty":95,"reason":"It does not hold."}'
const model = localScriptedModel(() => ({ text: NO_MATCH }))

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rc-cli-scope-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))
beforeEach(() => {
  model.asked.splice(0)
})

function file(name: string, text: string): string {
  const path = join(root, name)
  mkdirSync(resolve(path, '..'), { recursive: true })
  writeFileSync(path, text)
  return path
}

async function run(argv: string[], cwd = root, extra: object = {}) {
  let out = ''
  let err = ''
  const io = { cwd, out: (t: string) => (out += t), err: (t: string) => (err += t), ...extra }
  const code = await runCli(argv, io)
  return { code, out, err }
}

describe('prompt with scoped rules', () => {
  it('prints a question only for the rules in scope, naming their files, and says which it would not ask', async () => {
    const r = await run(['prompt', '--rules', file('s.yml', SCOPED_YAML), '--diff', file('s.diff', PY_DIFF)])
    expect(r.code).toBe(0)
    expect(r.out).toContain('=== block 2 for "python"')
    expect(r.out).toContain('- "app.py"')
    expect(r.out).toContain('=== block 2 for "style"')
    expect(r.out).not.toContain('=== block 2 for "migrations"')
    expect(r.out).toContain('=== not asked: "migrations" (No changed file matches its paths.)')
  })

  it('lists the rules not asked in --json', async () => {
    const r = await run(['prompt', '--rules', file('j.yml', SCOPED_YAML), '--diff', file('j.diff', PY_DIFF), '--json'])
    const doc = JSON.parse(r.out) as { classifications: { name: string }[]; not_asked: unknown[] }
    expect(doc.classifications.map((c) => c.name)).toEqual(['python', 'style'])
    expect(doc.not_asked).toEqual([{ name: 'migrations', reason: 'No changed file matches its paths.' }])
  })

  it('says when no rule would be asked at all', async () => {
    const onlyScoped = SCOPED_YAML.slice(0, SCOPED_YAML.indexOf('  - name: style'))
    const docs = 'diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n'
    const r = await run(['prompt', '--rules', file('n.yml', onlyScoped), '--diff', file('n.diff', docs)])
    expect(r.code).toBe(0)
    expect(r.out).toContain('=== no rule is asked: the run would approve with no model call')
  })
})

describe('validate with scoped rules', () => {
  it('shows mode and paths, and names a broken pattern', async () => {
    const good = await run(['validate', file('v.yml', SCOPED_YAML)])
    expect(good.code).toBe(0)
    expect(good.out).toMatch(/name +polarity +threshold +mode +paths +description/)
    expect(good.out).toMatch(/migrations +positive +80 +blocking +db\/migrations\/\*\* !db\/migrations\/legacy\/\*\*/)
    expect(good.out).toMatch(/style +positive +80 +advisory +every file/)
    const bad = await run(['validate', file('b.yml', SCOPED_YAML.replace('"*.py"', '"src/[z-a]"'))])
    expect(bad.code).not.toBe(0)
    expect(bad.err + bad.out).toContain(
      'classifications[0] (name "python"): paths[0]: pattern "src/[z-a]" has the range "z-a" out of order',
    )
  })
})

describe('check with scoped rules', () => {
  let repo = ''
  beforeAll(() => {
    repo = join(root, 'widgets')
    mkdirSync(repo, { recursive: true })
    git(repo, 'init', '-q', '-b', 'main')
    commit(repo, 'Start', { 'app.py': 'print(1)\n', '.hyperhive/review-classifier.yml': SCOPED_YAML })
    git(repo, 'checkout', '-q', '-b', 'feature')
    commit(repo, 'Change the app', { 'app.py': 'print(2)\n' })
  })

  it('asks only the rules in scope of the local diff; an advisory failure shows but does not block', async () => {
    const env = { ...gitEnv(), ANTHROPIC_API_KEY: 'sk-ant-api03-SCOPETEST-1a2b3c' }
    const r = await run(['check', '--json'], repo, { env, runtimes: model.runtimes })
    expect(model.asked.map((asked) => asked.rule)).toEqual(['python', 'style'])
    const doc = JSON.parse(r.out) as { overall: string; rows: Record<string, unknown>[] }
    expect(doc.rows.map((row) => [row.name, row.in_scope, row.mode, row.fails, row.blocks])).toEqual([
      ['python', true, 'blocking', true, true],
      ['migrations', false, 'blocking', false, false],
      ['style', true, 'advisory', true, false],
    ])
    expect(doc.rows[1]).toMatchObject({ verdict: 'not-applicable', certainty: null })
    expect(doc.overall).toBe('request-changes')
    expect(r.code).toBe(1)
    expect(r.err).toContain('not asked, no changed file matches their paths: "migrations"')
  })

  it('approves a branch that leaves every rule out of scope with no model call, and needs no key for it', async () => {
    const docsOnly = join(root, 'docs-only')
    mkdirSync(docsOnly, { recursive: true })
    const scopedOnly = SCOPED_YAML.slice(0, SCOPED_YAML.indexOf('  - name: style'))
    git(docsOnly, 'init', '-q', '-b', 'main')
    commit(docsOnly, 'Start', { 'README.md': 'a\n', '.hyperhive/review-classifier.yml': scopedOnly })
    git(docsOnly, 'checkout', '-q', '-b', 'feature')
    commit(docsOnly, 'Docs', { 'README.md': 'b\n' })
    const r = await run(['check', '--json'], docsOnly, { env: gitEnv(), runtimes: model.runtimes })
    expect(model.asked).toEqual([])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.out) as { overall: string; rows: Record<string, unknown>[] }
    expect(doc.overall).toBe('approve')
    expect(doc.rows.map((row) => row.in_scope)).toEqual([false, false])
  })
})
