import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildSharedContext, FENCE_END } from '../../core/run/prompt.ts'
import { parseCommitsFile } from '../../entrypoints/cli/prompt.ts'
import { runCli } from '../../entrypoints/cli.ts'
import { aSecretPr, leaksSecret } from '../support/secret-pr.ts'

const VALID_YAML = `classifications:
  - name: datetime
    description: All datetimes carry time zone information.
    polarity: positive
    threshold: 80
  - name: no-ads
    description: >-
      A commit message contains a co-authored-by line or other
      advertising for an AI model.
    polarity: negative
    threshold: 90
`

const INVALID_YAML = `classifications:
  - name: datetime
    description: ""
    polarity: yes
    threshold: "80"
    colour: red
`

const DIFF = `diff --git a/x.py b/x.py
index 1234567..89abcde 100644
--- a/x.py
+++ b/x.py
@@ -1 +1 @@
-a
+b
`

let dir = ''

async function run(argv: string[], cwd = dir): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await runCli(argv, { cwd, out: (t) => (out += t), err: (t) => (err += t) })
  return { code, out, err }
}

function file(name: string, text: string | Uint8Array): string {
  const path = join(dir, name)
  mkdirSync(resolve(path, '..'), { recursive: true })
  writeFileSync(path, text)
  return path
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rc-cli-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('cli validate', () => {
  it('prints the rules as a table and exits 0 for a valid file', async () => {
    const r = await run(['validate', file('ok.yml', VALID_YAML)])
    expect(r.code).toBe(0)
    expect(r.err).toBe('')
    expect(r.out).toContain('2 classifications')
    expect(r.out).toMatch(/datetime\s+positive\s+80\s+All datetimes carry time zone information\./)
    expect(r.out).toMatch(
      /no-ads\s+negative\s+90\s+A commit message contains a co-authored-by line or other advertising for an AI model\./,
    )
  })

  it('prints every problem, naming the file and entry, and exits 1 for an invalid file', async () => {
    const path = file('bad.yml', INVALID_YAML)
    const r = await run(['validate', path])
    expect(r.code).toBe(1)
    expect(r.out).toBe('')
    const lines = r.err.trim().split('\n')
    expect(lines.length).toBe(4)
    for (const line of lines) expect(line).toStartWith(`${path}: classifications[0] (name "datetime")`)
    expect(r.err).toContain('colour')
    expect(r.err).toContain('description is empty')
    expect(r.err).toContain('threshold')
    expect(r.err).toContain('polarity')
  })

  it('accepts a JSON rules file', async () => {
    const json = JSON.stringify({
      classifications: [{ name: 'a', description: 'b', threshold: 0, polarity: 'negative' }],
    })
    const r = await run(['validate', file('rules.json', json)])
    expect(r.code).toBe(0)
    expect(r.out).toContain('1 classification\n')
  })

  it('reads the repo rules file from the current directory by default', async () => {
    const repo = join(dir, 'repo')
    mkdirSync(join(repo, '.hyperhive'), { recursive: true })
    writeFileSync(join(repo, '.hyperhive/review-classifier.yml'), VALID_YAML)
    const r = await run(['validate'], repo)
    expect(r.code).toBe(0)
    expect(r.out).toContain('.hyperhive/review-classifier.yml: 2 classifications')
  })

  it('refuses a repo holding both the .yml and the .json file', async () => {
    const repo = join(dir, 'both')
    mkdirSync(join(repo, '.hyperhive'), { recursive: true })
    writeFileSync(join(repo, '.hyperhive/review-classifier.yml'), VALID_YAML)
    writeFileSync(join(repo, '.hyperhive/review-classifier.json'), '{}')
    const r = await run(['validate'], repo)
    expect(r.code).toBe(1)
    expect(r.err).toContain('.hyperhive/review-classifier.yml and .hyperhive/review-classifier.json')
  })

  it('says so when the directory has no rules file', async () => {
    const empty = mkdtempSync(join(dir, 'empty-'))
    const r = await run(['validate'], empty)
    expect(r.code).toBe(1)
    expect(r.err).toContain('no rules file')
  })

  it.each([
    ['a missing file', () => join(dir, 'nope.yml'), 'no such file'],
    ['a directory', () => dir, 'is not a file'],
    ['a file that is not UTF-8', () => file('latin1.yml', new Uint8Array([0x63, 0x3a, 0xe9, 0xff])), 'not valid UTF-8'],
    ['a 5 MB file', () => file('huge.yml', `classifications: []\n#${'x'.repeat(5 * 1024 * 1024)}\n`), 'limit'],
  ])('exits 1 with one clear line for %s', async (_label, makePath, expected) => {
    const r = await run(['validate', makePath()])
    expect(r.code).toBe(1)
    expect(r.err).toContain(expected)
    expect(r.err.trim().split('\n')).toHaveLength(1)
  })

  it('exits 2 with the usage for an unknown command or extra arguments', async () => {
    expect((await run(['frobnicate'])).code).toBe(2)
    const r = await run(['validate', 'a.yml', 'b.yml'])
    expect(r.code).toBe(2)
    expect(r.err).toContain('usage:')
  })
})

describe('cli prompt', () => {
  it('prints the prompt redacted as a run would send it, and says how many were redacted', async () => {
    const pr = aSecretPr()
    const args = ['prompt', '--rules', file('s.yml', VALID_YAML), '--diff', file('s.diff', pr.diff)]
    const plain = await run([...args, '--title', pr.title])
    expect(plain.code).toBe(0)
    expect(leaksSecret(pr, plain.out + plain.err)).toBe(false)
    expect(plain.out).toContain('Title: Deploy with [redacted aws-access-token #1]')
    expect(plain.out).toContain('+[redacted private-key #4]')
    expect(plain.err).toContain('4 secrets redacted before the pull request went to the model')
    const json = await run([...args, '--title', pr.title, '--json'])
    const doc = JSON.parse(json.out) as { redaction: { redacted: number } }
    expect(doc.redaction.redacted).toBe(4)
    expect(leaksSecret(pr, json.out)).toBe(false)
  })

  it('prints the system prompt, the shared block once and one question per rule', async () => {
    const r = await run([
      'prompt',
      '--rules',
      file('p.yml', VALID_YAML),
      '--diff',
      file('p.diff', DIFF),
      '--commits',
      file('commits.txt', 'first commit\n\nbody\0second\0'),
      '--repo',
      'acme/widgets',
      '--pr',
      '12',
      '--title',
      'Fix it',
    ])
    expect(r.code).toBe(0)
    expect(r.out).toContain('=== system prompt')
    expect(r.out).toContain('Pull request #12 in acme/widgets.')
    expect(r.out).toContain('Commit 1 of 2\nfirst commit\n\nbody')
    expect(r.out).toContain('Commit 2 of 2\nsecond')
    expect(r.out).not.toContain('index 1234567..89abcde')
    const shared = r.out.slice(r.out.indexOf('=== block 1'), r.out.indexOf('=== block 2'))
    expect(shared.split(FENCE_END)).toHaveLength(2)
    expect(r.out).toContain('=== block 2 for "datetime"')
    expect(r.out).toContain('=== block 2 for "no-ads"')
  })

  it('prints the exact stream-json stdin line per rule with --json, breakpoint on the shared block', async () => {
    const r = await run(['prompt', '--rules', file('j.yml', VALID_YAML), '--diff', file('j.diff', DIFF), '--json'])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.out) as { classifications: { name: string; stdin: string }[]; budget: { ok: boolean } }
    expect(doc.budget.ok).toBe(true)
    expect(doc.classifications.map((c) => c.name)).toEqual(['datetime', 'no-ads'])
    const lines = doc.classifications.map(
      (c) => JSON.parse(c.stdin) as { message: { content: Record<string, unknown>[] } },
    )
    const [first, second] = lines
    expect(first?.message.content).toHaveLength(2)
    expect(first?.message.content[0]?.cache_control).toEqual({ type: 'ephemeral' })
    expect(first?.message.content[1]?.cache_control).toBeUndefined()
    expect(first?.message.content[0]).toEqual(second?.message.content[0] ?? {})
  })

  it('exits 3 for a PR over the budget, printing no prompt: a run on it redacts and sends nothing', async () => {
    const big = `diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -0,0 +1,1 @@\n+${'y'.repeat(700_000)}\n`
    const rules = file('b.yml', VALID_YAML)
    const json = await run(['prompt', '--rules', rules, '--diff', file('big.diff', big), '--json'])
    expect(json.code).toBe(3)
    expect(json.err).toBe(
      "over budget: the PR's commits and diff come to 701 KB, over the 600 KB budget; a run on this PR redacts nothing, calls no model and posts no verdict\n",
    )
    const doc = JSON.parse(json.out) as { budget: { ok: boolean; bytes: number }; classifications: unknown[] }
    expect(doc.budget.ok).toBe(false)
    expect(doc.budget.bytes).toBeGreaterThan(700_000)
    expect(doc.classifications).toEqual([])
    const plain = await run(['prompt', '--rules', rules, '--diff', file('big.diff', big)])
    expect([plain.code, plain.out]).toEqual([3, ''])
  })

  it('exits 1, not 3, for input it refuses: a diff file that is not there', async () => {
    const r = await run(['prompt', '--rules', file('n.yml', VALID_YAML), '--diff', join(dir, 'missing.diff')])
    expect(r.code).toBe(1)
    expect(r.err).toBe(`diff file ${join(dir, 'missing.diff')} cannot be read: no such file\n`)
  })

  it('reads a diff that is not UTF-8 as the service does, and says so in one line on stderr', async () => {
    // A Latin-1 é, a lone 0xff and a cut-off three-byte sequence: text to git, but no UTF-8.
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('diff --git a/n.txt b/n.txt\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+caf'),
      0xe9,
      0x0a,
      0x2b,
      0xff,
      0xe2,
      0x82,
      0x0a,
    ])
    const path = file('latin1.diff', bytes)
    const r = await run(['prompt', '--rules', file('l.yml', VALID_YAML), '--diff', path, '--title', 'Notes'])
    expect(r.code).toBe(0)
    expect(r.err).toBe(
      `diff file ${path} is not valid UTF-8: each invalid byte sequence is read as U+FFFD (\ufffd), as the service reads a PR's diff\n`,
    )
    // What the service builds from the same bytes, decoded as its forge adapter decodes them.
    const expected = buildSharedContext({
      repo: 'owner/name',
      pr: 1,
      title: 'Notes',
      commits: [],
      diff: new TextDecoder().decode(bytes),
    })
    expect(r.out).toContain(expected)
    expect(expected).toContain('+caf\ufffd\n+\ufffd\ufffd\n')
  })

  it.each([
    [['prompt', '--diff', 'x.diff'], '--rules'],
    [['prompt', '--rules', 'x.yml'], '--diff'],
    [['prompt', '--rules', 'x.yml', '--diff', 'x.diff', '--pr', 'seven'], '--pr'],
    [['prompt', '--rules', 'x.yml', '--diff', 'x.diff', '--repo', 'nope'], '--repo'],
    [['prompt', '--rules', 'x.yml', '--diff', 'x.diff', '--colour'], 'colour'],
  ])('exits 2 for a bad command line %p', async (argv, expected) => {
    const r = await run(argv)
    expect(r.code).toBe(2)
    expect(r.err).toContain(expected)
  })

  it('exits 1 when the rules file is invalid, printing its problems', async () => {
    const r = await run(['prompt', '--rules', file('pbad.yml', INVALID_YAML), '--diff', file('q.diff', DIFF)])
    expect(r.code).toBe(1)
    expect(r.err).toContain('colour')
  })
})

describe('parseCommitsFile', () => {
  it.each([
    ['c.json', '["one", {"message": "two\\n\\nbody"}]', ['one', 'two\n\nbody']],
    ['c.txt', 'one\n\0\ntwo\n\nbody\n\0', ['one\n', 'two\n\nbody\n']],
    ['c.txt', '', []],
  ])('reads %s', (name, text, expected) => {
    expect(parseCommitsFile(name, text).map((c) => c.message)).toEqual(expected)
  })

  it('refuses a JSON file that is not a list of messages', async () => {
    expect(() => parseCommitsFile('c.json', '{"message": "x"}')).toThrow('JSON array')
    expect(() => parseCommitsFile('c.json', '[1]')).toThrow('entry 0')
    expect(() => parseCommitsFile('c.json', '[')).toThrow('not valid JSON')
  })
})

describe('cli as a process', () => {
  const cli = resolve(import.meta.dir, '../../entrypoints/cli.ts')

  it('exits 0 for a valid file and 1 for an invalid one', async () => {
    const good = Bun.spawnSync([process.execPath, 'run', cli, 'validate', file('proc-ok.yml', VALID_YAML)])
    expect(good.exitCode).toBe(0)
    expect(good.stdout.toString()).toContain('datetime')
    const bad = Bun.spawnSync([process.execPath, 'run', cli, 'validate', file('proc-bad.yml', INVALID_YAML)])
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr.toString()).toContain('proc-bad.yml: classifications[0]')
  })
})
