/**
 * What `check` reads of the local repo, with git: the base and head, their
 * merge base, the commits and diff since it, the repo's rules as the base
 * holds them, and the repo's name and a title. Every expected problem (not a
 * repo, an unknown ref, rules that don't load) is an `InputError` with one
 * line naming what is missing.
 */
import { basename, resolve } from 'node:path'
import type { LocalRepo } from '../../adapters/git/local-repo.ts'
import {
  parseRulesFile,
  RULES_JSON_PATH,
  RULES_MAX_BYTES,
  RULES_YML_PATH,
  type RulesProblem,
  selectRulesFile,
} from '../../core/repo-files/rules-file.ts'
import { listProblems } from '../../core/repo-files/source-file.ts'
import { defaultTitle, repoFromFolderName, repoFromRemoteUrl, unreadableEntry } from '../../core/run/local-branch.ts'
import type { Classification, CommitMessage } from '../../core/wire/types.ts'
import type { CheckOptions } from './check-options.ts'
import { readTextFile } from './input-files.ts'
import { InputError } from './io.ts'

export type LocalBranch = {
  repo: string
  title: string
  /** The base as named (`origin/main`), and how it was chosen. */
  base: { name: string; commit: string; chosen: 'flag' | 'origin HEAD' | 'fallback' }
  head: { name: string; commit: string }
  /** The branch `head` names, if it names one. */
  branch: string | null
  mergeBase: string
  commits: CommitMessage[]
  diff: string
  /** False when the diff was not valid UTF-8 (its invalid bytes read as U+FFFD, as the service reads them). */
  diffValid: boolean
  dirty: boolean
}

export type LoadedRules = { classifications: Classification[]; from: { path: string; at: string | null } }

export async function chooseBase(git: LocalRepo, flag: string | null): Promise<LocalBranch['base']> {
  if (flag !== null) {
    const commit = await git.resolveCommit(flag)
    if (commit === null) throw new InputError(`unknown base "${flag}": no branch, tag or commit by that name`)
    return { name: flag, commit, chosen: 'flag' }
  }
  const remoteDefault = await git.remoteDefaultBranch()
  if (remoteDefault !== null) {
    const commit = await git.resolveCommit(remoteDefault)
    if (commit === null) {
      throw new InputError(
        `unknown base "${remoteDefault}": refs/remotes/origin/HEAD points at it but it is gone; run 'git remote set-head origin --auto' or name one with --base REF`,
      )
    }
    return { name: remoteDefault, commit, chosen: 'origin HEAD' }
  }
  const commit = await git.resolveCommit('main')
  if (commit === null) {
    throw new InputError(
      `unknown base "main": git knows no default branch for origin (refs/remotes/origin/HEAD isn't set; 'git remote set-head origin --auto' sets it) and there is no main; or name one with --base REF`,
    )
  }
  return { name: 'main', commit, chosen: 'fallback' }
}

export async function repoName(git: LocalRepo, topLevel: string): Promise<string> {
  const url = await git.remoteUrl('origin')
  return (url === null ? null : repoFromRemoteUrl(url)) ?? repoFromFolderName(basename(topLevel))
}

/** Reads the branch to check; an InputError for anything a user must fix first. */
export async function readLocalBranch(git: LocalRepo, options: CheckOptions): Promise<LocalBranch> {
  const topLevel = await git.topLevel()
  const base = await chooseBase(git, options.base)
  const headCommit = await git.resolveCommit(options.head)
  if (headCommit === null) {
    throw new InputError(
      options.head === 'HEAD'
        ? 'HEAD has no commit yet: commit what you want checked'
        : `unknown head "${options.head}": no branch, tag or commit by that name`,
    )
  }
  const mergeBase = await git.mergeBase(base.commit, headCommit)
  if (mergeBase === null) {
    throw new InputError(`${options.head} and ${base.name} share no history: they have no merge base`)
  }
  const [commits, diff, branch, dirty, repo] = await Promise.all([
    git.commitMessages(mergeBase, headCommit),
    git.diff(mergeBase, headCommit),
    git.branchOf(options.head),
    options.head === 'HEAD' ? git.hasUncommittedChanges() : Promise.resolve(false),
    options.repo === null ? repoName(git, topLevel) : Promise.resolve(options.repo),
  ])
  if (commits.length === 0) {
    throw new InputError(`${options.head} has no commit that ${base.name} doesn't have: there is nothing to check`)
  }
  return {
    repo,
    title: options.title ?? defaultTitle(commits, branch),
    base,
    head: { name: options.head, commit: headCommit },
    branch,
    mergeBase,
    commits,
    diff: diff.text,
    diffValid: diff.valid,
    dirty,
  }
}

/** `what` says what doesn't load, verb included; the problems follow on the same line. */
function refusal(what: string, problems: readonly RulesProblem[]): InputError {
  return new InputError(`${what}: ${listProblems(problems)}`)
}

/**
 * The rules: the file `--rules` names (read from the work tree, so rules
 * being edited can be tried), else the repo's rules file as `base` holds it,
 * with the service's choice between the two names and its strict parsing.
 */
export async function loadCheckRules(
  git: LocalRepo,
  options: CheckOptions,
  cwd: string,
  base: LocalBranch['base'],
): Promise<LoadedRules> {
  if (options.rules !== null) {
    const text = readTextFile(resolve(cwd, options.rules), 'rules file', RULES_MAX_BYTES)
    const parsed = parseRulesFile(options.rules, text)
    if (!parsed.ok) throw refusal(`the rules file ${options.rules} doesn't load`, parsed.error)
    return { classifications: parsed.value, from: { path: options.rules, at: null } }
  }
  const entries = await git.entriesAt(base.commit, [RULES_YML_PATH, RULES_JSON_PATH])
  const yml = entries.find((entry) => entry.path === RULES_YML_PATH)
  const json = entries.find((entry) => entry.path === RULES_JSON_PATH)
  const selected = selectRulesFile({ yml: yml !== undefined, json: json !== undefined })
  if (!selected.ok) throw refusal(`the rules on ${base.name} don't load`, [selected.error])
  const path = selected.value
  const entry = path === RULES_YML_PATH ? yml : json
  if (path === null || entry === undefined) {
    throw new InputError(
      `${base.name} has no rules file: add ${RULES_YML_PATH} (or ${RULES_JSON_PATH}) there, or try one with --rules PATH`,
    )
  }
  const what = `the rules file ${path} on ${base.name} doesn't load`
  const unreadable = unreadableEntry(entry)
  if (unreadable !== null) throw refusal(what, [{ file: path, at: null, detail: unreadable }])
  const parsed = parseRulesFile(path, await git.readFileAt(base.commit, path))
  if (!parsed.ok) throw refusal(what, parsed.error)
  return { classifications: parsed.value, from: { path, at: base.name } }
}
