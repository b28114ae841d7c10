/** The fake forge's repository routes: repos, PRs, commits, diffs, contents, branches, reviews, permissions. */
import { addSnapshot, addStatus, blobSha, type RepoState, repoKey, sha1 } from '../../../adapters/memory/forge-state.ts'
import { generatedDiffChunks } from '../../../adapters/memory/generated-diff.ts'
import type { ForgeFile } from '../../../ports/forge.ts'
import { changeFiles } from './change-files.ts'
import {
  apiError,
  bodyObject,
  type DiffStreams,
  type FakeReviewState,
  json,
  notFound,
  paginate,
  permissionFor,
  RANK,
  type Route,
  type RouteContext,
  STREAMED,
  serverError,
  stringField,
} from './context.ts'
import {
  branchJson,
  commitJson,
  commitStatusJson,
  contentsJson,
  fileResponseJson,
  pullJson,
  repoJson,
  repoUrl,
} from './render.ts'

function findRepo(context: RouteContext): RepoState | null {
  const repo = context.state.repos.get(repoKey(context.params.owner ?? '', context.params.repo ?? ''))
  if (repo === undefined) return null
  // A private repo the caller can't read is hidden behind the same 404 as a missing one.
  return permissionFor(repo, context.caller?.user ?? null) === 'none' ? null : repo
}

function withRepo(handler: (context: RouteContext, repo: RepoState) => Response | Promise<Response>) {
  return (context: RouteContext) => {
    const repo = findRepo(context)
    return repo === null ? notFound(context, 'repository does not exist') : handler(context, repo)
  }
}

/** A generated diff sent a piece at a time as the client reads, with no length up front (as Forgejo streams one). */
function streamedDiff(bytes: number, stats: DiffStreams, headers: Record<string, string>): Response {
  const pieces = generatedDiffChunks(bytes)
  const response = new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = pieces.next()
        if (next.done === true) {
          controller.close()
          return
        }
        stats.bytesSent += next.value.byteLength
        controller.enqueue(next.value)
      },
      cancel() {
        stats.cancelled += 1
      },
    }),
    { headers },
  )
  STREAMED.add(response)
  return response
}

function withPull(handler: (context: RouteContext, repo: RepoState, pr: number) => Response | Promise<Response>) {
  return withRepo((context, repo) => {
    const pr = Number(context.params.index)
    return repo.pulls.has(pr)
      ? handler(context, repo, pr)
      : notFound(
          context,
          `pull request does not exist [id: 0, issue_id: 0, head_repo_id: 0, base_repo_id: 0, head_branch: , base_branch: ]`,
        )
  })
}

export function permission(context: RouteContext, repo: RepoState) {
  return permissionFor(repo, context.caller?.user ?? null)
}

/** A branch name, a full commit sha, or a prefix of one of 4 or more characters (docs/forgejo.md §3.5). */
function resolveRef(repo: RepoState, ref: string): string | null {
  const branch = repo.branches.get(ref)
  if (branch !== undefined) return branch.head
  if (repo.snapshots.has(ref)) return ref
  if (ref.length >= 4 && /^[0-9a-f]+$/.test(ref)) {
    const matches = [...repo.snapshots.keys()].filter((sha) => sha.startsWith(ref))
    if (matches.length === 1) return matches[0] ?? null
  }
  return null
}

/** A directory's immediate entries; a dir entry's sha is a hash of its path (good enough for a tree id here). */
function directoryEntries(
  files: Map<string, ForgeFile>,
  dir: string,
): Array<{ path: string; type: 'file' | 'dir'; content: null; sha: string }> {
  const prefix = dir === '' ? '' : `${dir}/`
  const seen = new Map<string, 'file' | 'dir'>()
  for (const path of files.keys()) {
    if (!path.startsWith(prefix)) continue
    const [head, ...rest] = path.slice(prefix.length).split('/')
    if (head !== undefined) seen.set(`${prefix}${head}`, rest.length > 0 ? 'dir' : 'file')
  }
  return [...seen].map(([path, type]) => ({
    path,
    type,
    content: null,
    sha: type === 'file' ? (files.get(path)?.sha ?? '') : sha1(`tree ${path}`),
  }))
}

function isBase64(text: string): boolean {
  return /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0
}

export function identity(value: unknown): { name: string; email: string } | null {
  const body = bodyObject(value)
  const email = stringField(body, 'email') ?? ''
  return email === '' ? null : { name: stringField(body, 'name') ?? '', email }
}

export const BRANCH_NAME = /^(?!\/|.*\/\/|.*\/$|.*\.\.|.*\.lock$|.*@\{|-)[^\u0000-\u0020\u007f~^:?*[\\]{1,100}$/

/** `POST` creates, `PUT` updates with `sha` (docs/forgejo.md §3.6), checked in the order Forgejo checks. */
function writeContents(context: RouteContext, repo: RepoState): Response {
  const caller = context.caller
  if (caller === null) return apiError(context, 401, 'token is required')
  if (RANK[permission(context, repo)] < RANK.write)
    return apiError(context, 403, 'user should have a permission to write to the target branch')
  const body = bodyObject(context.body)
  const update = context.request.method === 'PUT'
  const content = stringField(body, 'content') ?? ''
  if (!isBase64(content)) return apiError(context, 422, 'invalid base64 content')
  const sha = stringField(body, 'sha')
  if (update && (sha === undefined || sha === '')) return apiError(context, 422, '[SHA]: Required')
  if (update && repo.branches.size === 0) return apiError(context, 422, 'repository is empty')
  const from = stringField(body, 'branch') || repo.defaultBranch
  const fromBranch = repo.branches.get(from)
  if (fromBranch === undefined) return notFound(context, `branch does not exist [name: ${from}]`)
  const target = stringField(body, 'new_branch') || from
  if (target !== from) {
    if (!BRANCH_NAME.test(target)) return apiError(context, 422, `branch name is invalid [name: ${target}]`)
    if (repo.branches.has(target)) return apiError(context, 422, `branch already exists [name: ${target}]`)
  }
  const path = context.params.filepath ?? ''
  const files = repo.snapshots.get(fromBranch.head) ?? new Map<string, ForgeFile>()
  const current = files.get(path)
  if (!update && current !== undefined) return apiError(context, 422, `repository file already exists [path: ${path}]`)
  // Forgejo's quirk: a PUT on a path missing from the branch is a 500 (docs/forgejo.md §6.10).
  if (update && current === undefined) return serverError(context, `UpdateFile: file does not exist [path: ${path}]`)
  if (update && current?.sha !== sha)
    return apiError(context, 409, `sha does not match [given: ${sha}, expected: ${current?.sha}]`)

  // Identity rules of docs/forgejo.md §3.6: an empty email is ignored, one identity serves for both, none means the caller.
  const callerIdentity = { name: caller.user.fullName || caller.user.login, email: caller.user.email }
  const author = identity(body?.author)
  const committer = identity(body?.committer)
  const text = Buffer.from(content, 'base64').toString('utf8')
  const next = new Map(files)
  next.set(path, { content: text, sha: blobSha(text) })
  const commitSha = addSnapshot(context.state, repo, next)
  repo.branches.set(target, { head: commitSha })
  const message = stringField(body, 'message') || `${update ? 'Update' : 'Add'} ${path}`
  const who = { author: author ?? committer ?? callerIdentity, committer: committer ?? author ?? callerIdentity }
  repo.pushed.push({
    sha: commitSha,
    branch: target,
    from,
    path,
    content: text,
    message,
    ...who,
    pusher: caller.user.login,
  })
  const response = fileResponseJson(
    context.site,
    repo,
    { sha: commitSha, parent: fromBranch.head, message, ...who },
    { path, content: text },
    target,
  )
  return json(response, update ? 200 : 201)
}

const REVIEW_EVENTS = new Set(['APPROVED', 'REQUEST_CHANGES', 'COMMENT'])

/** `POST …/pulls/{n}/reviews` with Forgejo's quirks (docs/forgejo.md §3.7, §6.6). */
function createReview(context: RouteContext, repo: RepoState, pr: number): Response {
  const caller = context.caller
  const pull = repo.pulls.get(pr)
  if (caller === null || pull === undefined) return apiError(context, 401, 'token is required')
  const body = bodyObject(context.body)
  const event = stringField(body, 'event') ?? ''
  const text = stringField(body, 'body') ?? ''
  const blank = text.trim() === ''
  let state: FakeReviewState
  if (REVIEW_EVENTS.has(event))
    state = event === 'APPROVED' ? 'APPROVED' : event === 'REQUEST_CHANGES' ? 'REQUEST_CHANGES' : 'COMMENT'
  else if (!blank) state = 'PENDING'
  else return apiError(context, 422, 'review event PENDING requires a body')
  if ((state === 'REQUEST_CHANGES' || state === 'COMMENT') && blank)
    return apiError(context, 422, `review event ${state} requires a body`)
  const verdict = state === 'APPROVED' || state === 'REQUEST_CHANGES'
  if (verdict && pull.author.toLowerCase() === caller.user.login.toLowerCase()) {
    return apiError(context, 422, 'approve your own pull is not allowed')
  }
  const commitId = stringField(body, 'commit_id') || pull.headSha
  let stale = false
  if (verdict && commitId !== pull.headSha) {
    if (!repo.snapshots.has(commitId))
      return serverError(context, `object does not exist [id: ${commitId}, rel_path: ]`)
    stale = true
  }
  const id = context.extra.reviews.length + 1
  context.extra.counters.comment += 1
  const pullHtml = `${repoUrl(context.site, repo)}/pulls/${pr}`
  const official = verdict && RANK[permission(context, repo)] >= RANK.write
  const htmlUrl = state === 'PENDING' ? '' : `${pullHtml}#issuecomment-${1000 + context.extra.counters.comment}`
  const review = {
    id,
    repo: repoKey(repo.owner, repo.name),
    pr,
    user: caller.user.login,
    state,
    body: text,
    commitId,
    stale,
    official,
    htmlUrl,
  }
  context.extra.reviews.push(review)
  const { userJson } = context.render
  return json({
    id,
    user: userJson(caller.user),
    team: null,
    state,
    body: text,
    commit_id: commitId,
    stale,
    official,
    dismissed: false,
    comments_count: 0,
    submitted_at: '2026-06-30T10:10:00Z',
    updated_at: '2026-06-30T10:10:00Z',
    html_url: htmlUrl,
    pull_request_url: pullHtml,
  })
}

/** A commit the repo has, as Forgejo's `GetCommit` finds it: a PR's head (under `refs/pull/N/head`), a branch, a sha or a prefix of one. */
function resolveCommit(repo: RepoState, ref: string): string | null {
  const found = resolveRef(repo, ref)
  if (found !== null) return found
  const heads = [...new Set([...repo.pulls.values()].map((p) => p.headSha))]
  const matches = heads.filter(
    (sha) => sha === ref || (ref.length >= 4 && /^[0-9a-f]+$/.test(ref) && sha.startsWith(ref)),
  )
  return matches.length === 1 ? (matches[0] ?? null) : null
}

/**
 * `POST …/statuses/{sha}` (docs/forgejo.md §3.17), checked in Forgejo's
 * order after the scope and the repo lookup: a token (`reqToken`), code
 * write (`reqRepoWriter`), then the commit. The state is stored as sent:
 * Forgejo checks it against nothing.
 */
function createStatus(context: RouteContext, repo: RepoState): Response {
  const caller = context.caller
  if (caller === null) return apiError(context, 401, 'token is required')
  if (RANK[permission(context, repo)] < RANK.write)
    return apiError(context, 403, 'user should have a permission to write to a repo')
  const ref = context.params.sha ?? ''
  const sha = resolveCommit(repo, ref)
  // `ctx.NotFound("sha", sha)`: the last string given becomes the message.
  if (sha === null) return json({ message: ref, url: `${context.site.root}api/swagger`, errors: [] }, 404)
  const body = bodyObject(context.body)
  const status = addStatus(repo, {
    sha,
    state: stringField(body, 'state') ?? '',
    context: stringField(body, 'context') ?? '',
    description: stringField(body, 'description') ?? '',
    targetUrl: stringField(body, 'target_url') ?? '',
    creator: caller.user.login,
  })
  return json(commitStatusJson(context.site, repo, status, context.render.userJson(caller.user)), 201)
}

export function repoRoutes(): Route[] {
  return [
    {
      method: 'GET',
      template: '/repos/search',
      auth: 'repository',
      handler(context) {
        const user = context.caller?.user ?? null
        const visible = [...context.state.repos.values()].filter((r) => permissionFor(r, user) !== 'none')
        visible.sort(
          (a, b) =>
            context.site.idOf('repo', repoKey(a.owner, a.name)) - context.site.idOf('repo', repoKey(b.owner, b.name)),
        )
        if (context.url.searchParams.get('order') === 'desc') visible.reverse()
        const { items, headers } = paginate(context, visible)
        const data = items.map((r) => repoJson(context.site, r, permissionFor(r, user), context.options))
        return json({ ok: true, data }, 200, headers)
      },
    },
    {
      method: 'GET',
      template: '/repos/{owner}/{repo}',
      auth: 'repository',
      handler: withRepo((context, repo) =>
        json(repoJson(context.site, repo, permission(context, repo), context.options)),
      ),
    },
    {
      method: 'GET',
      template: '/repos/{owner}/{repo}/pulls',
      auth: 'repository',
      handler: withRepo((context, repo) => {
        // Left out, `state` means every state, whatever the spec says (docs/forgejo.md §6.1).
        const state = context.url.searchParams.get('state') ?? 'all'
        const pulls = [...repo.pulls.values()].filter((p) => state === 'all' || p.state === state)
        pulls.sort((a, b) =>
          context.url.searchParams.get('sort') === 'oldest' ? a.number - b.number : b.number - a.number,
        )
        const { items, headers } = paginate(context, pulls)
        return json(
          items.map((p) => pullJson(context.site, repo, p, permission(context, repo))),
          200,
          headers,
        )
      }),
    },
    {
      method: 'GET',
      template: '/repos/{owner}/{repo}/pulls/{index}.{diffType}',
      auth: 'repository',
      handler: withPull((context, repo, pr) => {
        const pull = repo.pulls.get(pr)
        if (context.params.diffType === 'patch')
          return new Response(`From ${pull?.headSha} Mon Sep 17 00:00:00 2001\n\n${pull?.diff ?? ''}`)
        const headers = { 'Content-Type': 'text/plain; charset=utf-8' }
        if (pull?.diffBytes === null || pull?.diffBytes === undefined)
          return new Response(pull?.diff ?? '', { headers })
        return streamedDiff(pull.diffBytes, context.extra.diffStreams, headers)
      }),
    },
    {
      method: 'GET',
      template: '/repos/{owner}/{repo}/pulls/{index}',
      auth: 'repository',
      handler: withPull((context, repo, pr) => {
        const pull = repo.pulls.get(pr)
        return pull === undefined
          ? notFound(context, 'pull')
          : json(pullJson(context.site, repo, pull, permission(context, repo)))
      }),
    },
    {
      method: 'GET',
      template: '/repos/{owner}/{repo}/pulls/{index}/commits',
      auth: 'repository',
      handler: withPull((context, repo, pr) => {
        const messages = repo.pulls.get(pr)?.commits ?? []
        // Newest first, as `git log` gives them (docs/forgejo.md §3.2).
        const commits = messages
          .map((message, i) => ({ message, sha: sha1(`commit ${repo.owner}/${repo.name}#${pr} ${i}`) }))
          .reverse()
        const { items, headers } = paginate(context, commits)
        return json(
          items.map((c) => commitJson(context.site, repo, c.sha, c.message)),
          200,
          headers,
        )
      }),
    },
    {
      method: 'POST',
      template: '/repos/{owner}/{repo}/pulls/{index}/reviews',
      auth: 'repository',
      handler: withPull(createReview),
    },
    {
      method: 'POST',
      template: '/repos/{owner}/{repo}/statuses/{sha}',
      auth: 'repository',
      handler: withRepo(createStatus),
    },
    {
      method: 'GET',
      template: '/repos/{owner}/{repo}/contents/{filepath}',
      auth: 'repository',
      handler: withRepo((context, repo) => {
        // An empty repo answers `[]` for any path (docs/forgejo.md §3.5).
        if (repo.branches.size === 0) return json([])
        const ref = context.url.searchParams.get('ref') || repo.defaultBranch
        const head = resolveRef(repo, ref)
        const files = head === null ? undefined : repo.snapshots.get(head)
        if (head === null || files === undefined)
          return notFound(context, `object does not exist [id: ${ref}, rel_path: ]`)
        const path = (context.params.filepath ?? '').replace(/\/+$/, '')
        const file = files.get(path)
        if (file !== undefined)
          return json(
            contentsJson(context.site, repo, { path, type: 'file', content: file.content, sha: file.sha }, ref, head),
          )
        const entries = directoryEntries(files, path)
        if (entries.length === 0) return notFound(context, `object does not exist [id: , rel_path: ${path}]`)
        return json(entries.map((entry) => contentsJson(context.site, repo, entry, ref, head)))
      }),
    },
    {
      method: 'POST',
      template: '/repos/{owner}/{repo}/contents',
      auth: 'repository',
      handler: withRepo(changeFiles),
    },
    {
      method: 'POST',
      template: '/repos/{owner}/{repo}/contents/{filepath}',
      auth: 'repository',
      handler: withRepo(writeContents),
    },
    {
      method: 'PUT',
      template: '/repos/{owner}/{repo}/contents/{filepath}',
      auth: 'repository',
      handler: withRepo(writeContents),
    },
    {
      method: 'GET',
      template: '/repos/{owner}/{repo}/branches/{branch}',
      auth: 'repository',
      handler: withRepo((context, repo) => {
        const name = context.params.branch ?? ''
        const branch = repo.branches.get(name)
        if (branch === undefined) return notFound(context, `branch does not exist [name: ${name}]`)
        return json(branchJson(context.site, repo, name, branch.head, RANK[permission(context, repo)] >= RANK.write))
      }),
    },
  ]
}
