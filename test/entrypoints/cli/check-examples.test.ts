/**
 * `check --examples` end to end: a bare "origin" repository in a temp
 * directory publishing `refs/pull/<n>/head` as Forgejo does (one PR open,
 * one merged with a merge commit), a clone of it, the real classifier
 * service in process on the scripted model (test/support/scripted-model.ts),
 * whose answers depend on the rule and the PR asked about. What the runtime
 * adds, `check` on the real `claude` and `opencode`, is check.test.ts's.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { ReliabilityScoreSchema } from '../../../core/wire/score-schemas.ts'
import { runCli } from '../../../entrypoints/cli.ts'
import { TWO_RULES_YAML } from '../../support/builders.ts'
import { hermeticGit } from '../../support/git-repo.ts'
import { localScriptedModel } from '../../support/scripted-model.ts'

// bun 1.4.5 does not apply bunfig's [test] timeout; git's work on a loaded machine can outlast its 5 s default.
setDefaultTimeout(60_000)

const KEY = 'sk-ant-api03-EXAMPLESTEST-5e4d3c2b1a'

const EXAMPLES_YAML = `# Labelled by hand.
examples:
  - pr: 1
    expect:
      datetime: match
      no-ads: no-match
  - pr: 2
    expect:
      datetime: no-match
    note: A naive datetime.
`

const MAIN_ONLY = 'MAIN_ONLY_FILE_51d0'

let root = ''
let clone = ''
/** The answer a rule gets on a PR: `${rule} ${pr}`; anything not named gets no-match at 95. */
let answers: Record<string, string> = {}

function answer(verdict: string, certainty = 95): string {
  return JSON.stringify({ verdict, certainty, reason: `Said ${verdict}.` })
}

/** The PR a question is about, from its shared block's header. */
const prOf = (context: string) => /Pull request #(\d+)/.exec(context)?.[1] ?? ''

const model = localScriptedModel(({ rule, context }) => ({
  text: answers[`${rule} ${prOf(context)}`] ?? answer('no-match'),
}))

const { env: gitEnv, git, commit } = hermeticGit(() => root)

/**
 * origin's main: the rules and examples, PR 2 merged with a merge commit,
 * then a commit of main's own; PR 1 open off main; a branch `other` whose
 * examples label a PR origin doesn't have and a rule that is gone.
 */
function makeOrigin(): void {
  const seed = join(root, 'seed')
  const origin = join(root, 'origin.git')
  git(root, 'init', '-q', '--bare', '-b', 'main', origin)
  mkdirSync(seed)
  git(seed, 'init', '-q', '-b', 'main')
  git(seed, 'remote', 'add', 'origin', origin)
  commit(seed, 'Start', {
    'app.py': 'print("hello")\n',
    '.hyperhive/review-classifier.yml': TWO_RULES_YAML,
    '.hyperhive/review-classifier.examples.yml': EXAMPLES_YAML,
  })
  git(seed, 'checkout', '-q', '-b', 'pr2')
  commit(seed, 'Add a naive clock PR2_COMMIT', { 'clock.py': 'PR2_DIFF = datetime.now()\n' })
  git(seed, 'push', '-q', 'origin', 'pr2:refs/pull/2/head')
  git(seed, 'checkout', '-q', 'main')
  git(seed, 'merge', '-q', '--no-ff', '-m', 'Merge PR 2', 'pr2')
  commit(seed, 'Main moves on', { 'main-only.txt': `${MAIN_ONLY}\n` })
  git(seed, 'checkout', '-q', '-b', 'pr1')
  commit(seed, 'Use UTC PR1_COMMIT', { 'utc.py': 'PR1_DIFF = datetime.now(timezone.utc)\n' })
  git(seed, 'push', '-q', 'origin', 'pr1:refs/pull/1/head')
  git(seed, 'checkout', '-q', 'main')
  git(seed, 'push', '-q', 'origin', 'main')
  git(seed, 'checkout', '-q', '-b', 'other')
  commit(seed, 'Other labels', {
    '.hyperhive/review-classifier.examples.yml':
      'examples:\n  - pr: 1\n    expect:\n      datetime: match\n      old-name: match\n  - pr: 9\n    expect:\n      datetime: match\n',
  })
  git(seed, 'push', '-q', 'origin', 'other')
  clone = join(root, 'clone')
  git(root, 'clone', '-q', origin, clone)
}

/** What the model was asked: each question's rule, PR and shared block. */
function modelCalls() {
  return model.asked.map(({ rule, context }) => ({ rule, pr: prOf(context), context }))
}

async function check(args: string[] = []) {
  let out = ''
  let err = ''
  const env = { ...gitEnv(), ANTHROPIC_API_KEY: KEY }
  const code = await runCli(['check', '--examples', ...args], {
    cwd: clone,
    env,
    out: (t) => (out += t),
    err: (t) => (err += t),
    runtimes: model.runtimes,
  })
  return { code, out, err }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rc-examples-'))
  makeOrigin()
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

beforeEach(() => {
  model.asked.splice(0)
  answers = {}
})

describe('check --examples', () => {
  it('exits 0 when every answer agrees, asking only the labelled rules of each PR, with its own diff', async () => {
    answers = { 'datetime 1': answer('match') }
    const r = await check()
    expect(r.code).toBe(0)
    const calls = modelCalls()
    expect(calls.map(({ rule, pr }) => `${rule} ${pr}`).sort()).toEqual(['datetime 1', 'datetime 2', 'no-ads 1'])
    const pr1 = calls.find(({ pr }) => pr === '1')?.context ?? ''
    const pr2 = calls.find(({ pr }) => pr === '2')?.context ?? ''
    expect(pr1).toContain('PR1_COMMIT')
    expect(pr1).toContain('+PR1_DIFF')
    expect(pr1).not.toContain('PR2_DIFF')
    // The merged PR is diffed from where it forked, not from the main it is now part of.
    expect(pr2).toContain('PR2_COMMIT')
    expect(pr2).toContain('+PR2_DIFF')
    expect(pr2).not.toContain('Merge PR 2')
    for (const context of [pr1, pr2]) expect(context).not.toContain(MAIN_ONLY)

    const lines = r.out.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^rule\s+labelled\s+agree\s+disagree\s+abstain\s+false passes\s+flips\s+margin\s+suggested threshold$/,
    )
    expect(r.out).toMatch(/\ndatetime\s+2\s+2\s+0\s+0\s+0\s+0\s+\+15\s+\d+ \(/)
    expect(r.out).toMatch(/\nno-ads\s+1\s+1\s+0\s+0\s+0\s+0\s+\+5\s+/)
    expect(lines.at(-1)).toBe('No answer disagrees with its label.')
    expect(r.err).toContain('scoring 2 rules on 2 labelled PRs from .hyperhive/review-classifier.examples.yml on')
    expect(r.err).toContain('PR #1 (1 of 2): 1 commit since ')
    expect(r.err).toContain('PR #2 (2 of 2): 1 commit since ')
    // Each run counts its own questions.
    expect(r.err).toContain('answered "datetime" (1 of 1 done): no match, certainty 95')
  })

  it('exits 1 when an answer disagrees, and names it a false pass', async () => {
    answers = { 'datetime 1': answer('match'), 'datetime 2': answer('match', 97) }
    const r = await check()
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/\ndatetime\s+2\s+1\s+1\s+0\s+1\s+0\s+/)
    expect(r.out).toContain('"datetime" on PR #2: labelled no match, answered match at certainty 97: a false pass')
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('1 answer disagrees with its label (1 of them a false pass).')
  })

  it('prints the score as JSON with --json, one answer per repeat', async () => {
    answers = { 'datetime 1': answer('match') }
    const r = await check(['--json', '--repeat', '2'])
    expect(r.code).toBe(0)
    const document = JSON.parse(r.out)
    expect(Value.Check(ReliabilityScoreSchema, document.score)).toBe(true)
    expect(document.outcome).toBe('agree')
    expect(document.score.repeat).toBe(2)
    expect(document.score.classifications[0]).toMatchObject({ name: 'datetime', labelled: 2, answers: 4, agree: 4 })
    expect(document.prs.map((pr: { pr: number; runs: unknown[] }) => [pr.pr, pr.runs.length])).toEqual([
      [1, 2],
      [2, 2],
    ])
    expect(modelCalls()).toHaveLength(6)
  })

  it('exits 2 when a labelled PR has no head on origin, and lists the labels left out', async () => {
    answers = { 'datetime 1': answer('match') }
    const r = await check(['--base', 'origin/other'])
    expect(r.code).toBe(2)
    expect(r.out).toContain('PR #9: origin has no refs/pull/9/head')
    expect(r.out).toContain('pr 1: no such classification "old-name"; its label is left out')
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(
      'No answer disagrees, but not every labelled PR was answered: no verdict.',
    )
  })

  it('refuses a base with no examples file before any model call', async () => {
    git(clone, 'checkout', '-q', '-b', 'unlabelled', 'origin/main')
    git(clone, 'rm', '-q', '.hyperhive/review-classifier.examples.yml')
    git(clone, 'commit', '-q', '-m', 'No labels')
    git(clone, 'checkout', '-q', 'main')
    const r = await check(['--base', 'unlabelled'])
    expect(r.code).toBe(2)
    expect(r.err).toBe(
      'check: unlabelled has no examples file: add .hyperhive/review-classifier.examples.yml (or .json) there\n',
    )
    expect(modelCalls()).toHaveLength(0)
  })
})
