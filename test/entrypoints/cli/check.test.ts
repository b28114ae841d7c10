/**
 * `check` end to end: a temporary git repository (a rules file and a
 * commit only `main` has, a branch with commits of its own) and the real
 * classifier service in process. What `check` itself decides (the branch it
 * reads, the rules, the report, the exit codes, redaction) runs on the
 * scripted model (test/support/scripted-model.ts); `check` as a process, its
 * choice of claude credential, and the ACP runtime run the real `claude`
 * against the fake Anthropic API on 127.0.0.1 and the real `opencode`
 * against the fake OpenAI-compatible provider.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildSharedContext } from '../../../core/run/prompt.ts'
import { runCli } from '../../../entrypoints/cli.ts'
import { Random, SECRET_KINDS } from '../../core/redaction/redact-corpus.ts'
import { TWO_RULES_YAML } from '../../support/builders.ts'
import { type FakeAnthropic, startFakeAnthropic, userTexts } from '../../support/fake-anthropic.ts'
import { startFakeOpenAI } from '../../support/fake-openai.ts'
import { hermeticGit } from '../../support/git-repo.ts'
import { localScriptedModel } from '../../support/scripted-model.ts'

// bun 1.4.5 does not apply bunfig's [test] timeout; a run spawns one claude per rule.
setDefaultTimeout(60_000)

const KEY = 'sk-ant-api03-CHECKTEST-5e4d3c2b1a'

const MATCH = '{"verdict":"match","certainty":95,"reason":"It holds."}'
const NO_MATCH = '{"verdict":"no-match","certainty":95,"reason":"It does not hold."}'

const MAIN_ONLY_FILE = 'MAIN_ONLY_FILE_7a1c'
const MAIN_ONLY_COMMIT = 'MAIN_ONLY_COMMIT_93bf'

let root = ''
let fake: FakeAnthropic
/** The answer each rule gets, by name, from the scripted model and the fake provider alike; a rule not named gets MATCH. */
let answers: Record<string, string> = {}
const model = localScriptedModel(({ rule }) => ({ text: answers[rule] ?? MATCH }))

const { env: gitEnv, git, commit } = hermeticGit(() => root)

/**
 * `main` with the rules and a file, a branch `feature` off it with two
 * commits, then one more commit on `main` only; `feature` checked out.
 */
function makeRepo(dir: string, rules: Record<string, string> = { '.hyperhive/review-classifier.yml': TWO_RULES_YAML }) {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
  commit(dir, 'Start', { 'app.py': 'print("hello")\n', ...rules })
  git(dir, 'checkout', '-q', '-b', 'feature')
  commit(dir, 'Add a clock\n\nIt tells the time in UTC.', {
    'clock.py': 'from datetime import datetime, timezone\nnow = datetime.now(timezone.utc)\n',
  })
  commit(dir, 'Use the clock', { 'app.py': 'from clock import now\nprint(now)\n' })
  git(dir, 'checkout', '-q', 'main')
  commit(dir, `${MAIN_ONLY_COMMIT}\n\nOnly main has this.`, { 'main-only.txt': `${MAIN_ONLY_FILE}\n` })
  git(dir, 'checkout', '-q', 'feature')
  return dir
}

type Ran = { code: number; out: string; err: string }

function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...gitEnv(), ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url, ...extra }
}

/** `check` in this process, on the scripted model. */
function check(cwd: string, args: string[] = [], env: Record<string, string | undefined> = cliEnv()) {
  return checkOn(model.runtimes, cwd, args, env)
}

/** `check` in this process on the real `claude` and `opencode`. */
function checkReal(cwd: string, args: string[] = [], env: Record<string, string | undefined> = cliEnv()) {
  return checkOn(undefined, cwd, args, env)
}

async function checkOn(
  runtimes: typeof model.runtimes | undefined,
  cwd: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<Ran> {
  let out = ''
  let err = ''
  const io = { cwd, env, out: (t: string) => (out += t), err: (t: string) => (err += t) }
  const code = await runCli(['check', ...args], runtimes === undefined ? io : { ...io, runtimes })
  return { code, out, err }
}

/** The `/v1/messages` calls the fake received. */
function modelCalls() {
  return fake.requests().filter((request) => request.method === 'POST' && request.path === '/v1/messages')
}

/** The rule a call to the fake provider asks about, from its question's `Name:` line. */
function ruleOf(body: unknown): string | null {
  const question = userTexts(body).at(-1) ?? ''
  return /^Name: (.+)$/m.exec(question)?.[1] ?? null
}

/** The rules the scripted model was asked, in the order asked. */
function rulesAsked(): string[] {
  return model.asked.map((asked) => asked.rule)
}

function oneLine(text: string): string {
  const lines = text.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  return lines[0] ?? ''
}

let repo = ''

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rc-check-'))
  fake = startFakeAnthropic({
    responder: (body) => ({ text: answers[ruleOf(body) ?? ''] ?? MATCH }),
  })
  repo = makeRepo(join(root, 'widgets'))
  writeFileSync(
    join(root, 'trying.yml'),
    'classifications:\n  - name: tested\n    description: The change has tests.\n    polarity: positive\n    threshold: 50\n',
  )
})

afterAll(async () => {
  await fake.stop()
  rmSync(root, { recursive: true, force: true })
})

beforeEach(() => {
  fake.reset()
  model.asked.splice(0)
  answers = {}
})

describe('check on the scripted model', () => {
  it('exits 0 for approve and prints the table, then the overall verdict on its own line', async () => {
    answers = { 'no-ads': NO_MATCH }
    const r = await check(repo)
    expect(r.code).toBe(0)
    const lines = r.out.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^classification\s+polarity\s+verdict\s+certainty\s+threshold\s+counted\s+reason$/)
    expect(r.out).toMatch(/\ndatetime\s+positive\s+match\s+95\s+80\s+yes ✅\s+It holds\.\n/)
    expect(r.out).toMatch(/\nno-ads\s+negative\s+no match\s+95\s+90\s+yes ✅\s+It does not hold\.\n/)
    expect(lines.at(-2)).toBe('')
    expect(lines.at(-1)).toBe('Overall: approve.')
  })

  it('shows the model the branch since the merge base, prepared as the service prepares a PR', async () => {
    answers = { 'no-ads': NO_MATCH }
    const r = await check(repo)
    expect(r.code).toBe(0)
    expect(rulesAsked().sort()).toEqual(['datetime', 'no-ads'])

    const mergeBase = git(repo, 'merge-base', 'main', 'feature').trim()
    const expected = buildSharedContext({
      repo: 'local/widgets',
      pr: 1,
      title: 'feature',
      commits: [{ message: 'Add a clock\n\nIt tells the time in UTC.\n' }, { message: 'Use the clock\n' }],
      diff: git(repo, 'diff', mergeBase, 'feature'),
    })
    for (const { context } of model.asked) {
      expect(context).toBe(expected)
      expect(context).toContain('Commit 1 of 2\nAdd a clock\n\nIt tells the time in UTC.')
      expect(context).toContain('+now = datetime.now(timezone.utc)')
      expect(context).not.toContain(MAIN_ONLY_FILE)
      expect(context).not.toContain(MAIN_ONLY_COMMIT)
      expect(context).not.toMatch(/^index [0-9a-f]+\.\./m)
    }
    // The progress went to stderr, a line per event (not a terminal: no redraws).
    expect(r.err).toContain('checking 2 commits (2 files changed) on feature since ')
    expect(r.err).toContain(`its merge base with main`)
    expect(r.err).toContain('2 rules from .hyperhive/review-classifier.yml on main; model claude haiku')
    expect(r.err).toContain('asking "datetime" (1 of 2; the others wait for it')
    expect(r.err).toMatch(/answered "(datetime|no-ads)" \(2 of 2 done\): (match|no match), certainty 95/)
    expect(r.err).not.toContain('\r')
    expect(r.err).not.toContain(KEY)
  })

  it('reads a diff that is not UTF-8 as the service does, says so in one line, and shows it as prompt does', async () => {
    const dir = makeRepo(join(root, 'latin1'))
    // Bytes git takes for text (no NUL) that are not UTF-8: a Latin-1 é and a lone 0xff.
    writeFileSync(join(dir, 'notes.txt'), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x6f, 0x6b, 0xff, 0x0a]))
    git(dir, 'add', 'notes.txt')
    git(dir, 'commit', '-q', '-m', 'Add notes')
    answers = { 'no-ads': NO_MATCH }
    const r = await check(dir)
    expect(r.code).toBe(0)
    const note =
      "the diff is not valid UTF-8: each invalid byte sequence is read as U+FFFD (\ufffd), as the service reads a PR's diff"
    expect(r.err.split('\n').filter((line) => line.includes('not valid UTF-8'))).toEqual([note])
    const mergeBase = git(dir, 'merge-base', 'main', 'feature').trim()
    const raw = Bun.spawnSync(['git', '-C', dir, 'diff', mergeBase, 'feature'], { env: gitEnv() }).stdout
    const diff = new TextDecoder().decode(raw)
    expect(diff).toContain('+caf\ufffd\n+ok\ufffd\n')
    const context = model.asked[0]?.context ?? ''
    expect(context).toContain('+caf\ufffd\n')
    // prompt, given the same bytes, prints the same shared block (the title and commits as check gave them).
    writeFileSync(join(root, 'latin1.diff'), raw)
    writeFileSync(
      join(root, 'latin1-commits.txt'),
      git(dir, 'log', '-z', '--reverse', '--format=%B', `${mergeBase}..feature`),
    )
    let out = ''
    let err = ''
    const code = await runCli(
      [
        'prompt',
        '--rules',
        join(root, 'trying.yml'),
        '--diff',
        join(root, 'latin1.diff'),
        '--commits',
        join(root, 'latin1-commits.txt'),
        '--repo',
        'local/latin1',
        '--title',
        'feature',
      ],
      { cwd: dir, out: (t) => (out += t), err: (t) => (err += t) },
    )
    expect(code).toBe(0)
    expect(err.split('\n').filter((line) => line.includes('not valid UTF-8'))).toHaveLength(1)
    expect(out).toContain(`=== block 1 (shared by every rule, cache breakpoint after it)\n${context}\n`)
  })

  it('exits 1 for request changes, and --json prints every row and the overall verdict', async () => {
    answers = { datetime: NO_MATCH, 'no-ads': NO_MATCH }
    const r = await check(repo, ['--json', '--title', 'Clock'])
    expect(r.code).toBe(1)
    const doc = JSON.parse(r.out) as Record<string, unknown>
    expect(doc.overall).toBe('request-changes')
    expect(doc.reason).toBeNull()
    expect(doc.rows).toEqual([
      {
        name: 'datetime',
        polarity: 'positive',
        threshold: 80,
        verdict: 'no-match',
        certainty: 95,
        reason: 'It does not hold.',
        counted: true,
        fails: true,
        error: null,
        mode: 'blocking',
        in_scope: true,
        blocks: true,
      },
      {
        name: 'no-ads',
        polarity: 'negative',
        threshold: 90,
        verdict: 'no-match',
        certainty: 95,
        reason: 'It does not hold.',
        counted: true,
        fails: false,
        error: null,
        mode: 'blocking',
        in_scope: true,
        blocks: false,
      },
    ])
    expect(doc).toMatchObject({
      repo: 'local/widgets',
      title: 'Clock',
      base: { name: 'main', commit: git(repo, 'rev-parse', 'main').trim() },
      merge_base: git(repo, 'merge-base', 'main', 'feature').trim(),
      commits: 2,
      rules: { path: '.hyperhive/review-classifier.yml', at: 'main' },
    })
    expect(r.out).not.toContain('usage')
    expect(r.out).not.toContain('tokens')
    expect(model.asked[0]?.context).toContain('Title: Clock\n')
  })

  it('exits 2 when a rule gets no answer, showing the row with its error', async () => {
    answers = { 'no-ads': 'I think it is fine.' }
    const r = await check(repo)
    expect(r.code).toBe(2)
    expect(r.out).toMatch(/\nno-ads\s+negative\s+—\s+—\s+90\s+no\s+no answer \(malformed answer\): not a JSON object/)
    expect(r.out).toContain('No verdict: 1 of 2 classifications got no answer (malformed answer: 1).\n')
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('Overall: no verdict.')
  })

  it('takes the rules from --rules instead of the base', async () => {
    const rules = join(root, 'trying.yml')
    const r = await check(repo, ['--rules', rules, '--json'])
    expect(r.code).toBe(0)
    expect(rulesAsked()).toEqual(['tested'])
    expect(JSON.parse(r.out)).toMatchObject({ rules: { path: rules, at: null } })
  })

  it("reads the base's rules, not the branch's", async () => {
    const dir = makeRepo(join(root, 'edited'))
    commit(dir, 'Drop a rule', {
      '.hyperhive/review-classifier.yml':
        'classifications:\n  - name: branch-only\n    description: x\n    polarity: positive\n    threshold: 1\n',
    })
    answers = { 'no-ads': NO_MATCH }
    const r = await check(dir, ['--json'])
    expect(r.code).toBe(0)
    expect(rulesAsked().sort()).toEqual(['datetime', 'no-ads'])
  })

  it("in a clone, checks against origin's default branch and names the repo from origin's URL", async () => {
    const upstream = makeRepo(join(root, 'forge', 'acme', 'widgets'))
    git(upstream, 'checkout', '-q', 'main')
    const clone = join(root, 'clone')
    git(root, 'clone', '-q', `file://${upstream}`, clone)
    git(clone, 'checkout', '-q', '-b', 'topic', 'origin/feature')
    const one = ['--json', '--rules', join(root, 'trying.yml')]

    const r = await check(clone, one)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ repo: 'acme/widgets', title: 'topic', base: { name: 'origin/main' } })

    // Without refs/remotes/origin/HEAD git knows no default branch: main it is.
    git(clone, 'remote', 'set-head', 'origin', '--delete')
    const fallback = await check(clone, one)
    expect(fallback.code).toBe(0)
    expect(JSON.parse(fallback.out)).toMatchObject({ base: { name: 'main' } })
  })
})

describe('check on a branch that adds secrets', () => {
  function secret(name: string, random: Random) {
    const kind = SECRET_KINDS.find((candidate) => candidate.name === name)
    if (kind === undefined) throw new RangeError(name)
    return kind.make(random)
  }

  it('sends the model placeholders, and the report and --json say what was redacted and where', async () => {
    answers = { 'no-ads': NO_MATCH }
    const random = new Random(7)
    const token = secret('GitHub fine-grained PAT', random)
    const pem = secret('RSA private key (PEM)', random)
    const dir = makeRepo(join(root, 'secrets'))
    commit(dir, `Add the deploy key\n\nWith the token ${token.text}.`, {
      'deploy/key.pem': `${pem.text}\n`,
      'deploy/config.ts': `export const token = '${token.text}'\n`,
    })
    const parts = [...token.secrets, ...pem.secrets]
    const leaks = (text: string) => parts.some((part) => text.includes(part))

    const plain = await check(dir)
    expect(plain.code).toBe(0)
    expect(plain.out).toContain('Secrets redacted: 2 secrets redacted before the pull request went to the model')
    expect(plain.out).toContain('- github-fine-grained-pat #1: the message of commit 3')
    expect(plain.out).toContain('- github-fine-grained-pat #1: deploy/config.ts, line 1')
    expect(plain.out).toContain('- private-key #2: deploy/key.pem, line 1')
    expect(plain.out.indexOf('Secrets redacted')).toBeGreaterThan(plain.out.indexOf('no-ads'))
    expect(model.asked.length).toBe(2)
    for (const asked of model.asked) {
      expect(leaks(JSON.stringify([asked.context, asked.question]))).toBe(false)
      expect(asked.context).toContain('[redacted private-key #2]')
    }

    const json = await check(dir, ['--json'])
    const doc = JSON.parse(json.out) as { redaction?: { redacted: number; places: number; findings: unknown[] } }
    expect(doc.redaction).toMatchObject({ redacted: 2, places: 3 })
    expect(doc.redaction?.findings).toContainEqual({
      kind: 'private-key',
      n: 2,
      part: 'diff',
      path: 'deploy/key.pem',
      line: 1,
      side: 'new',
    })
    expect(leaks(plain.out + plain.err + json.out + json.err)).toBe(false)
  })
})

describe('check stops before any model call', () => {
  it('exits 2 with one line when there is no API key', async () => {
    const r = await check(repo, [], cliEnv({ ANTHROPIC_API_KEY: '' }))
    expect(r.code).toBe(2)
    expect(oneLine(r.err)).toBe(
      'check: no API key: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN for a Claude subscription, or use the ACP runtime with --acp-base-url, --acp-model and ACP_API_KEY)',
    )
    expect(r.out).toBe('')
    expect(model.asked).toEqual([])
  })

  it('exits 2 with one line when the rules on the base do not load', async () => {
    const dir = makeRepo(join(root, 'bad-rules'), {
      '.hyperhive/review-classifier.yml': 'classifications:\n  - name: x\n    description: ""\n    colour: red\n',
    })
    const r = await check(dir)
    expect(r.code).toBe(2)
    const line = oneLine(r.err)
    expect(line).toStartWith("check: the rules file .hyperhive/review-classifier.yml on main doesn't load: ")
    expect(line).toContain('colour')
    expect(line).toContain('description is empty')
    expect(model.asked).toEqual([])
  })

  it('refuses a base holding both rules files, as the service does', async () => {
    const dir = makeRepo(join(root, 'both'), {
      '.hyperhive/review-classifier.yml': TWO_RULES_YAML,
      '.hyperhive/review-classifier.json': '{"classifications": []}',
    })
    const r = await check(dir)
    expect(r.code).toBe(2)
    expect(oneLine(r.err)).toContain(
      '.hyperhive/review-classifier.yml and .hyperhive/review-classifier.json: both exist; a repo holds one of the two, so neither is loaded',
    )
  })

  it('exits 2 with one line when a --rules file does not load', async () => {
    const r = await check(repo, ['--rules', join(root, 'missing.yml')])
    expect(r.code).toBe(2)
    expect(oneLine(r.err)).toContain('missing.yml cannot be read: no such file')
  })

  it('exits 2 with one line outside a git repository', async () => {
    const dir = mkdtempSync(join(root, 'plain-'))
    const r = await check(dir)
    expect(r.code).toBe(2)
    expect(oneLine(r.err)).toBe(`check: ${dir} is not in a git repository`)
    expect(model.asked).toEqual([])
  })

  it('exits 2 with one line for an unknown base or head', async () => {
    const base = await check(repo, ['--base', 'no-such-branch'])
    expect(base.code).toBe(2)
    expect(oneLine(base.err)).toBe('check: unknown base "no-such-branch": no branch, tag or commit by that name')
    const head = await check(repo, ['--head=--output=evil'])
    expect(head.code).toBe(2)
    expect(oneLine(head.err)).toBe('check: unknown head "--output=evil": no branch, tag or commit by that name')
    expect(model.asked).toEqual([])
  })

  it('exits 2 when the branch has nothing main lacks', async () => {
    const r = await check(repo, ['--head', 'main~1'])
    expect(r.code).toBe(2)
    expect(oneLine(r.err)).toBe("check: main~1 has no commit that main doesn't have: there is nothing to check")
  })

  it('exits 2 with the usage for a bad command line, never 1', async () => {
    for (const args of [['--pr', 'seven'], ['--acp-model', 'm'], ['--effort', 'huge'], ['--colour'], ['extra']]) {
      const r = await check(repo, args)
      expect(r.code).toBe(2)
      expect(r.err).toContain('usage:')
    }
    expect(model.asked).toEqual([])
  })
})

describe('check as a process', () => {
  it('exits 1 for request changes with the progress on stderr', async () => {
    answers = { datetime: NO_MATCH, 'no-ads': NO_MATCH }
    const cli = resolve(import.meta.dir, '../../../entrypoints/cli.ts')
    // Not spawnSync: the fake provider answers from this process.
    const child = Bun.spawn([process.execPath, 'run', cli, 'check'], {
      cwd: repo,
      env: cliEnv(),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [code, out, err] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ])
    expect(code).toBe(1)
    expect(out).toEndWith('\nOverall: request changes.\n')
    expect(err).toContain('asking "datetime"')
  })
})

describe('check with each claude credential', () => {
  const TOKEN = 'sk-ant-oat01-CHECKTEST-2b7f0e'

  beforeEach(() => {
    answers = { 'no-ads': NO_MATCH }
  })

  it('runs on the subscription when CLAUDE_CODE_OAUTH_TOKEN is the only credential', async () => {
    const r = await checkReal(repo, ['--json'], cliEnv({ ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: TOKEN }))
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ overall: 'approve', runtime: 'subscription', model: 'haiku' })
    expect(r.err).toContain('model claude haiku (subscription)')
    const calls = modelCalls()
    expect(calls).toHaveLength(2)
    for (const call of calls) {
      expect(call.headers.authorization).toBe(`Bearer ${TOKEN}`)
      expect(call.headers['x-api-key']).toBeUndefined()
    }
    expect(r.err).not.toContain(TOKEN)
  })

  it('runs on the API key when ANTHROPIC_API_KEY is the only credential', async () => {
    const r = await checkReal(repo, ['--json'], cliEnv())
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ runtime: 'api-key' })
    for (const call of modelCalls()) {
      expect(call.headers['x-api-key']).toBe(KEY)
      expect(call.headers.authorization).toBeUndefined()
    }
  })

  it('with both set, refuses to guess (a usage error, exit 2) and takes --runtime', async () => {
    const both = cliEnv({ CLAUDE_CODE_OAUTH_TOKEN: TOKEN })
    const refused = await checkReal(repo, [], both)
    expect(refused.code).toBe(2)
    expect(refused.err).toContain(
      'both ANTHROPIC_API_KEY and CLAUDE_CODE_OAUTH_TOKEN are set: choose with --runtime api-key or --runtime subscription',
    )
    expect(refused.err).toContain('usage:')
    expect(fake.requests()).toEqual([])

    const chosen = await checkReal(repo, ['--runtime', 'subscription', '--json'], both)
    expect(chosen.code).toBe(0)
    expect(JSON.parse(chosen.out)).toMatchObject({ runtime: 'subscription' })
    for (const call of modelCalls()) {
      expect(call.headers.authorization).toBe(`Bearer ${TOKEN}`)
      expect(call.headers['x-api-key']).toBeUndefined()
    }
  })

  it('exits 2 with one line for --runtime subscription without a token', async () => {
    const r = await checkReal(repo, ['--runtime', 'subscription'], cliEnv())
    expect(r.code).toBe(2)
    expect(oneLine(r.err)).toBe(
      'check: no OAuth token: set CLAUDE_CODE_OAUTH_TOKEN to the token `claude setup-token` printed',
    )
    expect(fake.requests()).toEqual([])
  })
})

describe('check on the ACP runtime (the real opencode, the fake OpenAI-compatible provider)', () => {
  it('asks the provider at --acp-base-url with ACP_API_KEY', async () => {
    const provider = await startFakeOpenAI()
    try {
      const r = await checkReal(
        repo,
        [
          '--acp-base-url',
          provider.url,
          '--acp-model',
          'Qwen/Qwen3-35B',
          '--rules',
          join(root, 'trying.yml'),
          '--json',
        ],
        {
          ...gitEnv(),
          ACP_API_KEY: 'acp-check-test-key',
          NODE_EXTRA_CA_CERTS: provider.caFile,
          HTTPS_PROXY: provider.proxyUrl,
          NO_PROXY: '127.0.0.1',
        },
      )
      expect(r.code).toBe(0)
      expect(JSON.parse(r.out)).toMatchObject({ overall: 'approve', runtime: 'acp', model: 'Qwen/Qwen3-35B' })
      const asked = provider.requests().filter((request) => request.path.endsWith('/chat/completions'))
      expect(asked).toHaveLength(1)
      const sent = JSON.stringify(asked[0]?.body)
      expect(sent).toContain('Add a clock')
      expect(sent).not.toContain(MAIN_ONLY_FILE)
      expect(asked[0]?.headers.authorization).toBe('Bearer acp-check-test-key')
      expect(fake.requests()).toEqual([])
    } finally {
      await provider.stop()
    }
    // A new opencode takes ~3 CPU seconds to start: on a loaded 2-core machine, most of a minute.
  }, 240_000)
})
