/**
 * A repo's labelled examples (docs/behaviour.md, "Labelled examples and
 * reliability"), read like the rules (rules-loader.ts): from the default
 * branch with the controller's own token and no cache, the head first and
 * both files at that commit. The `examples` route, a try-out against the
 * examples and the rules-change report load them through here; the report
 * also reads a PR's own version at its head.
 */

import {
  EXAMPLES_JSON_PATH,
  EXAMPLES_YML_PATH,
  parseExamplesFile,
  selectExamplesFile,
} from '../../../core/examples-file.ts'
import type { LoadedExamples } from '../../../core/repo-examples.ts'
import { cappedProblem } from '../../../core/source-tree.ts'
import type { RepoRef } from '../../../core/types.ts'
import { type RulesReader, readDefaultBranch, readRepoFile } from './rules-loader.ts'

/** The examples on the default branch, and the repo's web page; throws as `loadDefaultBranchRules` does. */
export async function loadDefaultBranchExamples(
  forge: RulesReader,
  repo: RepoRef,
): Promise<{ loaded: LoadedExamples; htmlUrl: string }> {
  const { branch, commit, htmlUrl } = await readDefaultBranch(forge, repo)
  return { loaded: await loadExamplesAt(forge, repo, branch, commit), htmlUrl }
}

/** The examples file at `commit`; `branch` names it. */
export async function loadExamplesAt(
  forge: RulesReader,
  repo: RepoRef,
  branch: string,
  commit: string,
): Promise<LoadedExamples> {
  const [yml, json] = await Promise.all([
    readRepoFile(forge, repo, EXAMPLES_YML_PATH, commit),
    readRepoFile(forge, repo, EXAMPLES_JSON_PATH, commit),
  ])
  const selected = selectExamplesFile({ yml: yml !== null, json: json !== null })
  if (!selected.ok) return { kind: 'both', branch, commit }
  const path = selected.value
  const file = path === EXAMPLES_YML_PATH ? yml : json
  if (path === null || file === null) return { kind: 'none', branch, commit }
  if (file.kind === 'unreadable') {
    return {
      kind: 'invalid',
      path,
      branch,
      commit,
      problems: [cappedProblem({ file: path, at: null, detail: file.detail })],
    }
  }
  const parsed = parseExamplesFile(path, file.text)
  if (!parsed.ok) return { kind: 'invalid', path, branch, commit, problems: parsed.error }
  return { kind: 'examples', path, branch, commit, examples: parsed.value }
}
