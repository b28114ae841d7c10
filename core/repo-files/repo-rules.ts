/**
 * What a repo's default branch holds by way of rules (docs/behaviour.md,
 * "Repo configuration"), and the words for it: the `rules` route, "open a
 * PR" and the review all say the same thing about "no rules", "both files"
 * and "doesn't load".
 */

import { err, ok, type Result } from '../base/result.ts'
import { repoName } from '../wire/repo.ts'
import type { Classification, RepoRef } from '../wire/types.ts'
import { RULES_FILE, RULES_JSON_PATH, RULES_YML_PATH, type RulesProblem } from './rules-file.ts'
import { describeSourceRefusal } from './source-file.ts'

export { SOURCE_PROBLEMS_SHOWN as RULES_PROBLEMS_SHOWN } from './source-file.ts'

/** The rules file read, with the blob sha an update of it must name. */
export type RulesFileRead = { path: string; text: string; sha: string }

/** The default branch's rules; every kind names the branch and the commit it was read at. */
export type DefaultBranchRules =
  | {
      kind: 'rules'
      path: string
      branch: string
      commit: string
      classifications: Classification[]
      file: RulesFileRead
    }
  /** Neither rules file. */
  | { kind: 'none'; branch: string; commit: string }
  /** Both rules files, so neither loads. */
  | { kind: 'both'; branch: string; commit: string }
  /** One file that doesn't parse, breaks a rule, or isn't a readable file (a directory, a symlink, too large). */
  | { kind: 'invalid'; path: string; branch: string; commit: string; problems: RulesProblem[] }

/** Why rules that are there don't load, naming the file and its first problems (source-file.ts). */
export function describeRulesRefusal(loaded: Extract<DefaultBranchRules, { kind: 'both' | 'invalid' }>): string {
  return describeSourceRefusal(RULES_FILE, loaded)
}

/** The words for a repo with neither file, naming the path to add. */
export function describeNoRules(repo: RepoRef, branch: string): string {
  return `${repoName(repo)} has no rules file on its default branch ${branch}: add ${RULES_YML_PATH} (or ${RULES_JSON_PATH}) there to give it rules`
}

/** Why the default branch gives no rules, as the app error a route answers with: 404 for no file, 422 for one that doesn't load. */
export type RulesRefusal = { code: 'not_found' | 'unprocessable'; detail: string }

/** The rules the default branch gave, or why it gave none: the one reading of a load's kinds. */
export function loadedRules(
  repo: RepoRef,
  loaded: DefaultBranchRules,
): Result<Extract<DefaultBranchRules, { kind: 'rules' }>, RulesRefusal> {
  switch (loaded.kind) {
    case 'rules':
      return ok(loaded)
    case 'none':
      return err({ code: 'not_found', detail: describeNoRules(repo, loaded.branch) })
    case 'both':
    case 'invalid':
      return err({ code: 'unprocessable', detail: describeRulesRefusal(loaded) })
  }
}
