/**
 * Loading a repo's rules from its default branch, through the real Forgejo
 * adapter against the fake forge, which answers as docs/forgejo.md says (a hidden
 * repo is a 404, an empty repo answers `[]` for every path).
 */

import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createForgejoForge } from '../../../../../adapters/forgejo/forge.ts'
import { isAppError } from '../../../../../core/base/errors.ts'
import {
  describeNoRules,
  describeRulesRefusal,
  RULES_PROBLEMS_SHOWN,
} from '../../../../../core/repo-files/repo-rules.ts'
import { RULES_JSON_PATH, RULES_YML_PATH } from '../../../../../core/repo-files/rules-file.ts'
import type { RepoRef } from '../../../../../core/wire/types.ts'
import {
  loadDefaultBranchRules,
  type RulesReader,
} from '../../../../../entrypoints/controller/usecases/repo-files/rules-loader.ts'
import { TWO_RULES_YAML } from '../../../../support/builders.ts'
import { type ForgejoHarness, startForgejoHarness } from '../../../../support/fake-forgejo/harness.ts'
import { failureOf } from '../../http/http-support.ts'

setDefaultTimeout(30_000)

const YML = `# the team's rules\n${TWO_RULES_YAML}`
const JSON_RULES = JSON.stringify({
  classifications: [
    { name: 'zeta', description: 'Comes first in the file.', threshold: 10, polarity: 'positive' },
    { name: 'alpha', description: 'Comes second.', threshold: 20, polarity: 'negative' },
  ],
})

const repo = (name: string): RepoRef => ({ owner: 'acme', name })
const YAML_REPO = repo('yaml')
const JSON_REPO = repo('json')
const NONE = repo('none')
const BOTH = repo('both')
const BROKEN = repo('broken')
const BAD_JSON = repo('bad-json')
const MANY_PROBLEMS = repo('many-problems')
const DIRECTORY = repo('directory')
const EMPTY = repo('empty')
const NO_DEFAULT = repo('no-default')
const SECRET = repo('secret')
const MISSING = repo('missing')

/** Rules that break 12 rules at once: 11 entries, each with a bad threshold. */
const TWELVE_PROBLEMS = `classifications:\n${Array.from({ length: 11 }, (_, i) => `  - { name: r${i}, description: d, threshold: 1${i}00, polarity: positive }`).join('\n')}\n`

let h: ForgejoHarness

beforeAll(async () => {
  h = await startForgejoHarness({
    users: [{ login: 'bob' }],
    tokens: [
      { login: 'bob', name: 'bob', token: 'b0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb', scopes: ['read:repository'] },
    ],
    repos: [
      {
        owner: 'acme',
        name: 'yaml',
        defaultBranch: 'trunk',
        files: { [RULES_YML_PATH]: YML },
        branches: { main: { [RULES_JSON_PATH]: JSON_RULES } },
      },
      { owner: 'acme', name: 'json', files: { [RULES_JSON_PATH]: JSON_RULES } },
      { owner: 'acme', name: 'none', files: { 'README.md': 'hello' }, branches: { rules: { [RULES_YML_PATH]: YML } } },
      { owner: 'acme', name: 'both', files: { [RULES_YML_PATH]: YML, [RULES_JSON_PATH]: JSON_RULES } },
      {
        owner: 'acme',
        name: 'broken',
        files: {
          [RULES_YML_PATH]: YML.replace('threshold: 90', 'threshold: 190').replace(
            'polarity: positive',
            'polarity: postive',
          ),
        },
      },
      { owner: 'acme', name: 'bad-json', files: { [RULES_JSON_PATH]: '{"classifications": [' } },
      { owner: 'acme', name: 'many-problems', files: { [RULES_YML_PATH]: TWELVE_PROBLEMS } },
      { owner: 'acme', name: 'directory', files: { [`${RULES_YML_PATH}/inside.yml`]: YML } },
      { owner: 'acme', name: 'empty', empty: true },
      {
        owner: 'acme',
        name: 'no-default',
        defaultBranch: 'trunk',
        files: {},
        branches: { main: { [RULES_YML_PATH]: YML } },
      },
      { owner: 'acme', name: 'secret', private: true, files: { [RULES_YML_PATH]: YML } },
    ],
  })
  h.fake.deleteBranch(NO_DEFAULT, 'trunk')
})

afterAll(async () => {
  await h.cleanup()
})

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await failureOf(promise)
  if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`)
  return { code: error.code, message: error.message }
}

describe('loadDefaultBranchRules', () => {
  it('reads the YAML file from the default branch at its head, in file order, with the blob sha and the text as written', async () => {
    const loaded = await loadDefaultBranchRules(h.forge, YAML_REPO)
    const head = await h.forge.getBranchHead(YAML_REPO, 'trunk')
    const file = await h.forge.getFileContent(YAML_REPO, RULES_YML_PATH, 'trunk')
    expect(loaded).toEqual({
      kind: 'rules',
      path: RULES_YML_PATH,
      branch: 'trunk',
      commit: head ?? 'no head',
      classifications: [
        {
          name: 'datetime',
          description: 'All datetimes carry time zone information.',
          threshold: 80,
          polarity: 'positive',
        },
        {
          name: 'no-ads',
          description: 'A commit message advertises an AI model.',
          threshold: 90,
          polarity: 'negative',
        },
      ],
      file: { path: RULES_YML_PATH, text: YML, sha: file?.sha ?? 'no sha' },
    })
  })

  it('reads the JSON file, keeping its order', async () => {
    const loaded = await loadDefaultBranchRules(h.forge, JSON_REPO)
    expect(loaded.kind).toBe('rules')
    if (loaded.kind !== 'rules') return
    expect(loaded.path).toBe(RULES_JSON_PATH)
    expect(loaded.branch).toBe('main')
    expect(loaded.classifications.map((c) => c.name)).toEqual(['zeta', 'alpha'])
  })

  it('reads both files at the head commit it read first, not at the branch name', async () => {
    h.fake.requests.length = 0
    const loaded = await loadDefaultBranchRules(h.forge, JSON_REPO)
    const contents = h.fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/contents/{filepath}')
    expect(contents.map((r) => r.path).sort()).toEqual([
      `/repos/acme/json/contents/${RULES_JSON_PATH}`,
      `/repos/acme/json/contents/${RULES_YML_PATH}`,
    ])
    expect(contents.map((r) => r.query.ref)).toEqual([loaded.commit, loaded.commit])
    expect(loaded.commit).toMatch(/^[0-9a-f]{40}$/)
  })

  it('answers the commit it read even when a push lands between the head and the files', async () => {
    const pushing: RulesReader = {
      getRepository: (r) => h.forge.getRepository(r),
      getFileContent: (r, path, ref) => h.forge.getFileContent(r, path, ref),
      async getBranchHead(r, branch) {
        const head = await h.forge.getBranchHead(r, branch)
        h.fake.changeFile(r, branch, RULES_YML_PATH, YML.replace('name: datetime', 'name: pushed-later'))
        return head
      },
    }
    const target = repo('yaml')
    const before = await h.forge.getBranchHead(target, 'trunk')
    const loaded = await loadDefaultBranchRules(pushing, target)
    expect(loaded.kind === 'rules' && loaded.classifications.map((c) => c.name)).toEqual(['datetime', 'no-ads'])
    expect(loaded.commit).toBe(before ?? 'no head')
    expect(await h.forge.getBranchHead(target, 'trunk')).not.toBe(before)
    // Put the file back for the other tests.
    h.fake.changeFile(target, 'trunk', RULES_YML_PATH, YML)
  })

  it("answers none, with the branch and commit, when the default branch has neither file (another branch's file doesn't count)", async () => {
    const loaded = await loadDefaultBranchRules(h.forge, NONE)
    expect(loaded).toEqual({
      kind: 'none',
      branch: 'main',
      commit: (await h.forge.getBranchHead(NONE, 'main')) ?? 'no head',
    })
    expect(describeNoRules(NONE, 'main')).toBe(
      `acme/none has no rules file on its default branch main: add ${RULES_YML_PATH} (or ${RULES_JSON_PATH}) there to give it rules`,
    )
  })

  it('answers both when the default branch has both files', async () => {
    const loaded = await loadDefaultBranchRules(h.forge, BOTH)
    expect(loaded).toEqual({ kind: 'both', branch: 'main', commit: expect.stringMatching(/^[0-9a-f]{40}$/) })
    if (loaded.kind !== 'both') return
    expect(describeRulesRefusal(loaded)).toBe(
      `the rules don't load: ${RULES_YML_PATH} and ${RULES_JSON_PATH}: both exist; a repo holds one of the two, so neither is loaded`,
    )
  })

  it('answers invalid with every problem of a file that breaks the rules', async () => {
    const loaded = await loadDefaultBranchRules(h.forge, BROKEN)
    expect(loaded.kind).toBe('invalid')
    if (loaded.kind !== 'invalid') return
    expect(loaded.path).toBe(RULES_YML_PATH)
    expect(loaded.problems.map((p) => p.detail)).toEqual([
      'polarity must be "positive" or "negative", got "postive" (a string)',
      'threshold must be a whole number 0–100, got 190 (a number)',
    ])
    const detail = describeRulesRefusal(loaded)
    expect(detail).toStartWith(
      `the rules file ${RULES_YML_PATH} doesn't load: ${RULES_YML_PATH}: classifications[0] (name "datetime"): polarity`,
    )
    expect(detail).toContain('classifications[1] (name "no-ads"): threshold must be a whole number 0–100')
  })

  it("answers invalid for a file that doesn't parse", async () => {
    const loaded = await loadDefaultBranchRules(h.forge, BAD_JSON)
    expect(loaded.kind === 'invalid' && describeRulesRefusal(loaded)).toBe(
      `the rules file ${RULES_JSON_PATH} doesn't load: ${RULES_JSON_PATH}: line 1, column 22: invalid JSON: unexpected end of file`,
    )
  })

  it('lists the first problems and counts the rest', async () => {
    const loaded = await loadDefaultBranchRules(h.forge, MANY_PROBLEMS)
    expect(loaded.kind === 'invalid' && loaded.problems.length).toBe(12)
    if (loaded.kind !== 'invalid') return
    const detail = describeRulesRefusal(loaded)
    // The list's own problem first, then one per entry: r0 to r8 make ten.
    expect(RULES_PROBLEMS_SHOWN).toBe(10)
    expect(detail).toContain('classifications: has 11 classifications; at most 10 are allowed')
    expect(detail).toContain('classifications[8] (name "r8")')
    expect(detail).not.toContain('classifications[9]')
    expect(detail).toEndWith('; and 2 more problems')
  })

  it('answers invalid for a directory where the rules file goes', async () => {
    const loaded = await loadDefaultBranchRules(h.forge, DIRECTORY)
    expect(loaded.kind).toBe('invalid')
    if (loaded.kind !== 'invalid') return
    expect(loaded.problems).toEqual([
      {
        file: RULES_YML_PATH,
        at: null,
        detail: expect.stringMatching(/^is a directory in acme\/directory at [0-9a-f]{40}$/),
      },
    ])
  })

  it('throws not_found for an unknown repo, and for a private one the token may not read (the forge hides it behind 404)', async () => {
    expect(await codeOf(loadDefaultBranchRules(h.forge, MISSING))).toEqual({
      code: 'not_found',
      message: 'the forge has no repo acme/missing that this host can read',
    })
    const asBob = createForgejoForge({
      baseUrl: h.fake.url,
      token: async () => 'b0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb0bb',
    })
    expect(await codeOf(loadDefaultBranchRules(asBob, SECRET))).toEqual({
      code: 'not_found',
      message: 'the forge has no repo acme/secret that this host can read',
    })
    // The site admin sees it.
    expect((await loadDefaultBranchRules(h.forge, SECRET)).kind).toBe('rules')
  })

  it('throws not_found for an empty repo and for a default branch that does not exist', async () => {
    expect(await codeOf(loadDefaultBranchRules(h.forge, EMPTY))).toEqual({
      code: 'not_found',
      message: 'acme/empty is empty: its default branch main has no commit',
    })
    expect(await codeOf(loadDefaultBranchRules(h.forge, NO_DEFAULT))).toEqual({
      code: 'not_found',
      message: "the default branch trunk of acme/no-default doesn't exist",
    })
  })

  it("passes the forge's failures through: a 500, no token, a forge that doesn't answer in time", async () => {
    h.fake.failNext('GET', '/repos/{owner}/{repo}/contents/{filepath}', { status: 500 })
    expect((await codeOf(loadDefaultBranchRules(h.forge, JSON_REPO))).code).toBe('unavailable')

    const tokenless = createForgejoForge({ baseUrl: h.fake.url, token: async () => null })
    expect(await codeOf(loadDefaultBranchRules(tokenless, JSON_REPO))).toEqual({
      code: 'unavailable',
      message: 'no forge token yet: the controller has no site-admin token for the forge',
    })

    const impatient = await startForgejoHarness(
      { repos: [{ owner: 'acme', name: 'json', files: { [RULES_JSON_PATH]: JSON_RULES } }] },
      {},
      { timeoutMs: 200 },
    )
    try {
      impatient.fake.failNext('GET', '/repos/{owner}/{repo}/branches/{branch}', 'hang')
      expect((await codeOf(loadDefaultBranchRules(impatient.forge, JSON_REPO))).code).toBe('timeout')
    } finally {
      await impatient.cleanup()
    }
  })
})
