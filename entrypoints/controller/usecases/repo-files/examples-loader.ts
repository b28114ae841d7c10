/**
 * A repo's labelled examples (docs/behaviour.md, "Labelled examples and
 * reliability"), read like the rules by the one loader of both files
 * (source-loader.ts): from the default branch with the controller's own
 * token and no cache, the head first and both files at that commit. The
 * `examples` route, a try-out against the examples and the rules-change
 * report load them through here; the report also reads a PR's own version
 * at its head.
 */

import { EXAMPLES_FILE } from '../../../../core/repo-files/examples-file.ts'
import type { LoadedExamples } from '../../../../core/repo-files/repo-examples.ts'
import type { RepoRef } from '../../../../core/wire/types.ts'
import { type RulesReader, readDefaultBranch } from './rules-loader.ts'
import { loadSourceAt } from './source-loader.ts'

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
  const loaded = await loadSourceAt(forge, repo, EXAMPLES_FILE, branch, commit)
  if (loaded.kind !== 'loaded') return loaded
  return { kind: 'examples', path: loaded.path, branch, commit, examples: loaded.value }
}
