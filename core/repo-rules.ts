/**
 * What a repo's default branch holds by way of rules (docs/behaviour.md,
 * "Repo configuration"), and the words for it: the `rules` route, "open a
 * PR" and the review all say the same thing about "no rules", "both files"
 * and "doesn't load".
 */

import { repoName } from './repo.ts'
import {
  formatRulesProblem,
  RULES_JSON_PATH,
  RULES_YML_PATH,
  type RulesProblem,
  selectRulesFile,
} from './rules-file.ts'
import type { Classification, RepoRef } from './types.ts'

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

/** Problems listed in a refusal's text; a person fixing the file runs `validate` for the rest. */
export const RULES_PROBLEMS_SHOWN = 10

/** core's words for two rules files, which `selectRulesFile` gives for that case alone. */
function bothFilesProblem(): RulesProblem {
  const selected = selectRulesFile({ yml: true, json: true })
  return selected.ok
    ? { file: `${RULES_YML_PATH} and ${RULES_JSON_PATH}`, at: null, detail: 'both exist' }
    : selected.error
}

/** Why rules that are there don't load, naming the file and the first {@link RULES_PROBLEMS_SHOWN} problems. */
export function describeRulesRefusal(loaded: Extract<DefaultBranchRules, { kind: 'both' | 'invalid' }>): string {
  if (loaded.kind === 'both') return `the rules don't load: ${formatRulesProblem(bothFilesProblem())}`
  const shown = loaded.problems.slice(0, RULES_PROBLEMS_SHOWN).map(formatRulesProblem)
  const more = loaded.problems.length - shown.length
  return `the rules file ${loaded.path} doesn't load: ${shown.join('; ')}${more > 0 ? `; and ${more} more problems` : ''}`
}

/** The words for a repo with neither file, naming the path to add. */
export function describeNoRules(repo: RepoRef, branch: string): string {
  return `${repoName(repo)} has no rules file on its default branch ${branch}: add ${RULES_YML_PATH} (or ${RULES_JSON_PATH}) there to give it rules`
}
