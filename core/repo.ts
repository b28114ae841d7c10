import type { RepoRef } from './types.ts'

/** `owner/name`, as the spec, the wire formats and the messages write a repo. */
export function repoName(repo: RepoRef): string {
  return `${repo.owner}/${repo.name}`
}
