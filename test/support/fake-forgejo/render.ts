/**
 * The fake forge's JSON: objects shaped as Forgejo v15 renders them
 * (docs/forgejo.md §1.4, §3), every field declared in swagger.v1.json except the
 * documented `username` on users. Ids are derived from names, so they are
 * stable within a fake.
 */

import type { RepoPermission } from '../../../adapters/memory/forge-state.ts'
import {
  blobSha,
  type PullState,
  type RepoState,
  type StoredStatus,
  sha1,
  type TokenState,
  type UserState,
} from '../../../adapters/memory/forge-state.ts'

export const CREATED = '2026-06-01T00:00:00Z'
export const ZERO_TIME = '0001-01-01T00:00:00Z'

export type Site = {
  /** `http://127.0.0.1:<port>/`, Forgejo's ROOT_URL with its trailing slash. */
  root: string
  idOf(kind: string, key: string): number
}

export function apiUrl(site: Site, path: string): string {
  return `${site.root}api/v1${path}`
}

export function repoUrl(site: Site, repo: RepoState): string {
  return `${site.root}${repo.owner}/${repo.name}`
}

/** A user as an admin (or the user) sees it: the real email and the private fields filled. */
export function userJson(
  site: Site,
  user: UserState,
  extra: { restricted?: boolean; prohibitLogin?: boolean; active?: boolean } = {},
): Record<string, unknown> {
  return {
    id: site.idOf('user', user.login.toLowerCase()),
    login: user.login,
    login_name: '',
    source_id: 0,
    full_name: user.fullName,
    email: user.email,
    avatar_url: `${site.root}avatars/${sha1(user.login)}`,
    html_url: `${site.root}${user.login}`,
    language: '',
    is_admin: user.admin,
    last_login: ZERO_TIME,
    created: CREATED,
    restricted: extra.restricted ?? false,
    active: extra.active ?? true,
    prohibit_login: extra.prohibitLogin ?? false,
    location: '',
    pronouns: '',
    website: '',
    description: '',
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: user.login,
  }
}

function ownerJson(site: Site, login: string): Record<string, unknown> {
  return userJson(site, {
    login,
    fullName: '',
    email: `${login.toLowerCase()}@noreply.127.0.0.1`,
    admin: false,
    tokens: [],
  })
}

const RANK: Record<RepoPermission, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 }

export function repoJson(
  site: Site,
  repo: RepoState,
  permission: RepoPermission,
  options: { openPrCounter: boolean },
): Record<string, unknown> {
  const html = repoUrl(site, repo)
  const pulls = [...repo.pulls.values()]
  const open = pulls.filter((p) => p.state === 'open').length
  const json: Record<string, unknown> = {
    id: site.idOf('repo', `${repo.owner}/${repo.name}`.toLowerCase()),
    owner: ownerJson(site, repo.owner),
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    description: '',
    empty: repo.branches.size === 0,
    private: repo.private,
    fork: false,
    template: false,
    parent: null,
    mirror: false,
    size: 0,
    language: '',
    languages_url: apiUrl(site, `/repos/${repo.owner}/${repo.name}/languages`),
    html_url: html,
    url: apiUrl(site, `/repos/${repo.owner}/${repo.name}`),
    link: '',
    ssh_url: `git@127.0.0.1:${repo.owner}/${repo.name}.git`,
    clone_url: `${html}.git`,
    original_url: '',
    website: '',
    stars_count: 0,
    forks_count: 0,
    watchers_count: 1,
    open_issues_count: 0,
    release_counter: 0,
    default_branch: repo.defaultBranch,
    archived: false,
    created_at: CREATED,
    updated_at: CREATED,
    archived_at: '1970-01-01T00:00:00Z',
    permissions: {
      admin: RANK[permission] >= RANK.admin,
      push: RANK[permission] >= RANK.write,
      pull: RANK[permission] >= RANK.read,
    },
    has_issues: true,
    internal_tracker: {
      enable_time_tracker: true,
      allow_only_contributors_to_track_time: true,
      enable_issue_dependencies: true,
    },
    has_wiki: true,
    wiki_branch: 'main',
    has_pull_requests: true,
    has_projects: true,
    has_releases: true,
    has_packages: true,
    has_actions: true,
    ignore_whitespace_conflicts: false,
    allow_merge_commits: true,
    allow_rebase: true,
    allow_rebase_explicit: true,
    allow_squash_merge: true,
    allow_fast_forward_only_merge: true,
    allow_rebase_update: true,
    default_delete_branch_after_merge: false,
    default_merge_style: 'merge',
    default_update_style: 'merge',
    default_allow_maintainer_edit: false,
    avatar_url: '',
    internal: false,
    mirror_interval: '',
    object_format_name: 'sha1',
    mirror_updated: ZERO_TIME,
    repo_transfer: null,
    topics: [],
  }
  if (options.openPrCounter) json.open_pr_counter = open
  return json
}

function branchInfo(
  site: Site,
  repo: RepoState,
  ref: string,
  sha: string,
  permission: RepoPermission,
): Record<string, unknown> {
  return {
    label: ref,
    ref,
    sha,
    repo_id: site.idOf('repo', `${repo.owner}/${repo.name}`.toLowerCase()),
    repo: repoJson(site, repo, permission, { openPrCounter: true }),
  }
}

export function pullJson(
  site: Site,
  repo: RepoState,
  pull: PullState,
  permission: RepoPermission,
): Record<string, unknown> {
  const html = `${repoUrl(site, repo)}/pulls/${pull.number}`
  const baseSha = repo.branches.get(pull.baseRef)?.head ?? sha1(`base ${pull.baseRef}`)
  const closedAt = pull.state === 'closed' ? CREATED : null
  return {
    id: site.idOf('pull', `${repo.owner}/${repo.name}#${pull.number}`.toLowerCase()),
    url: html,
    number: pull.number,
    user: ownerJson(site, pull.author),
    title: pull.title,
    body: '',
    labels: [],
    milestone: null,
    assignee: null,
    assignees: null,
    requested_reviewers: [],
    requested_reviewers_teams: [],
    state: pull.state,
    draft: false,
    is_locked: false,
    comments: 0,
    review_comments: 0,
    additions: 1,
    deletions: 1,
    changed_files: 1,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    mergeable: pull.state === 'open',
    merged: pull.merged,
    merged_at: pull.merged ? CREATED : null,
    merge_commit_sha: pull.merged ? sha1(`merge ${pull.number}`) : null,
    merged_by: null,
    allow_maintainer_edit: false,
    base: branchInfo(site, repo, pull.baseRef, baseSha, permission),
    head: branchInfo(site, repo, pull.headRef, pull.headSha, permission),
    merge_base: baseSha,
    due_date: null,
    created_at: CREATED,
    updated_at: CREATED,
    closed_at: closedAt,
    pin_order: 0,
    flow: 0,
  }
}

/** The PR's commits as `GET …/pulls/{n}/commits?files=false` gives them, one of them. */
export function commitJson(site: Site, repo: RepoState, sha: string, message: string): Record<string, unknown> {
  const who = { name: 'Alice Example', email: 'alice@example.org', date: CREATED }
  return {
    url: apiUrl(site, `/repos/${repo.owner}/${repo.name}/git/commits/${sha}`),
    sha,
    created: CREATED,
    html_url: `${repoUrl(site, repo)}/commit/${sha}`,
    commit: {
      url: apiUrl(site, `/repos/${repo.owner}/${repo.name}/git/commits/${sha}`),
      author: who,
      committer: who,
      message,
      // Forgejo's quirk: the commit sha, not the tree's (docs/forgejo.md §6.11).
      tree: { url: apiUrl(site, `/repos/${repo.owner}/${repo.name}/git/trees/${sha}`), sha, created: CREATED },
      verification: null,
    },
    author: null,
    committer: null,
    parents: [],
    files: null,
  }
}

export function contentsJson(
  site: Site,
  repo: RepoState,
  entry: { path: string; type: 'file' | 'dir'; content: string | null; sha: string },
  ref: string,
  lastCommit: string,
): Record<string, unknown> {
  const name = entry.path.split('/').at(-1) ?? entry.path
  const self = apiUrl(site, `/repos/${repo.owner}/${repo.name}/contents/${entry.path}?ref=${ref}`)
  const git = apiUrl(
    site,
    `/repos/${repo.owner}/${repo.name}/git/${entry.type === 'file' ? 'blobs' : 'trees'}/${entry.sha}`,
  )
  const html = `${repoUrl(site, repo)}/src/branch/${ref}/${entry.path}`
  const isFile = entry.type === 'file' && entry.content !== null
  return {
    name,
    path: entry.path,
    sha: entry.sha,
    last_commit_sha: lastCommit,
    last_commit_when: CREATED,
    type: entry.type,
    size: isFile ? Buffer.byteLength(entry.content ?? '', 'utf8') : 0,
    encoding: isFile ? 'base64' : null,
    content: isFile ? Buffer.from(entry.content ?? '', 'utf8').toString('base64') : null,
    target: null,
    url: self,
    html_url: html,
    git_url: git,
    download_url: isFile ? `${repoUrl(site, repo)}/raw/branch/${ref}/${entry.path}` : null,
    submodule_git_url: null,
    _links: { self, git, html },
  }
}

export function fileResponseJson(
  site: Site,
  repo: RepoState,
  commit: {
    sha: string
    parent: string
    message: string
    author: { name: string; email: string }
    committer: { name: string; email: string }
  },
  file: { path: string; content: string },
  branch: string,
): Record<string, unknown> {
  const commitUrl = apiUrl(site, `/repos/${repo.owner}/${repo.name}/git/commits/${commit.sha}`)
  return {
    content: contentsJson(
      site,
      repo,
      { path: file.path, type: 'file', content: file.content, sha: blobSha(file.content) },
      branch,
      commit.sha,
    ),
    commit: {
      url: commitUrl,
      sha: commit.sha,
      created: CREATED,
      html_url: `${repoUrl(site, repo)}/commit/${commit.sha}`,
      author: { ...commit.author, date: CREATED },
      committer: { ...commit.committer, date: CREATED },
      parents: [
        {
          url: apiUrl(site, `/repos/${repo.owner}/${repo.name}/git/commits/${commit.parent}`),
          sha: commit.parent,
          created: CREATED,
        },
      ],
      message: commit.message,
      tree: {
        url: apiUrl(site, `/repos/${repo.owner}/${repo.name}/git/trees/${commit.sha}`),
        sha: commit.sha,
        created: CREATED,
      },
    },
    verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
  }
}

export function branchJson(
  site: Site,
  repo: RepoState,
  name: string,
  head: string,
  canPush: boolean,
): Record<string, unknown> {
  return {
    name,
    commit: {
      id: head,
      message: 'commit',
      url: `${repoUrl(site, repo)}/commit/${head}`,
      author: { name: 'Alice Example', email: 'alice@example.org', username: 'alice' },
      committer: { name: 'Alice Example', email: 'alice@example.org', username: 'alice' },
      verification: {
        verified: false,
        reason: 'gpg.error.not_signed_commit',
        signature: '',
        signer: null,
        payload: '',
      },
      timestamp: CREATED,
      added: null,
      removed: null,
      modified: null,
    },
    protected: false,
    required_approvals: 0,
    enable_status_check: false,
    status_check_contexts: [],
    user_can_push: canPush,
    user_can_merge: canPush,
    effective_branch_protection_name: '',
  }
}

/** `CommitStatus`: the state as `status`, `id` the status's number on its commit, `url` the commit's statuses route. */
export function commitStatusJson(
  site: Site,
  repo: RepoState,
  status: StoredStatus,
  creator: Record<string, unknown>,
): Record<string, unknown> {
  return {
    id: status.id,
    status: status.state,
    target_url: status.targetUrl,
    description: status.description,
    url: apiUrl(site, `/repos/${repo.owner}/${repo.name}/statuses/${status.sha}`),
    context: status.context,
    creator,
    created_at: '2026-06-30T10:10:00Z',
    updated_at: '2026-06-30T10:10:00Z',
  }
}

export function tokenJson(token: TokenState, shown: boolean): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    sha1: shown ? token.token : '',
    token_last_eight: token.token.slice(-8),
    scopes: token.scopes,
    repositories: null,
  }
}
