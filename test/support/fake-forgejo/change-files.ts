/**
 * The fake forge's `POST /repos/{o}/{r}/contents` (ChangeFilesOptions,
 * docs/forgejo.md §3.6): several files written by one commit, each
 * `create` (422 when the file exists) or `update` (its `sha` required, 409
 * on a mismatch), on `branch` or a `new_branch` made from it.
 */
import { addSnapshot, blobSha, type RepoState } from '../../../adapters/memory/forge-state.ts'
import type { ForgeFile } from '../../../ports/forge.ts'
import { apiError, bodyObject, json, notFound, RANK, type RouteContext, stringField } from './context.ts'
import { fileResponseJson } from './render.ts'
import { BRANCH_NAME, identity, permission } from './repo-routes.ts'

type Operation = { operation: 'create' | 'update'; path: string; content: string; sha: string | undefined }

function operations(value: unknown): Operation[] | string {
  if (!Array.isArray(value) || value.length === 0) return '[Files]: Required'
  const out: Operation[] = []
  for (const item of value) {
    const body = bodyObject(item)
    const operation = stringField(body, 'operation')
    const path = stringField(body, 'path') ?? ''
    const content = stringField(body, 'content') ?? ''
    if (operation !== 'create' && operation !== 'update') return `unsupported operation ${operation}`
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(content) || content.length % 4 !== 0) return 'invalid base64 content'
    out.push({
      operation,
      path,
      content: Buffer.from(content, 'base64').toString('utf8'),
      sha: stringField(body, 'sha'),
    })
  }
  return out
}

export function changeFiles(context: RouteContext, repo: RepoState): Response {
  const caller = context.caller
  if (caller === null) return apiError(context, 401, 'token is required')
  if (RANK[permission(context, repo)] < RANK.write)
    return apiError(context, 403, 'user should have a permission to write to the target branch')
  const body = bodyObject(context.body)
  const ops = operations(body?.files)
  if (typeof ops === 'string') return apiError(context, 422, ops)
  const from = stringField(body, 'branch') || repo.defaultBranch
  const fromBranch = repo.branches.get(from)
  if (fromBranch === undefined) return notFound(context, `branch does not exist [name: ${from}]`)
  const target = stringField(body, 'new_branch') || from
  if (target !== from) {
    if (!BRANCH_NAME.test(target)) return apiError(context, 422, `branch name is invalid [name: ${target}]`)
    if (repo.branches.has(target)) return apiError(context, 422, `branch already exists [name: ${target}]`)
  }
  const files = repo.snapshots.get(fromBranch.head) ?? new Map<string, ForgeFile>()
  const next = new Map(files)
  for (const op of ops) {
    const current = files.get(op.path)
    if (op.operation === 'create' && current !== undefined)
      return apiError(context, 422, `repository file already exists [path: ${op.path}]`)
    if (op.operation === 'update' && (op.sha === undefined || op.sha === ''))
      return apiError(context, 422, '[SHA]: Required')
    if (op.operation === 'update' && current === undefined)
      return apiError(context, 404, `file does not exist [path: ${op.path}]`)
    if (op.operation === 'update' && current?.sha !== op.sha)
      return apiError(context, 409, `sha does not match [given: ${op.sha}, expected: ${current?.sha}]`)
    next.set(op.path, { content: op.content, sha: blobSha(op.content) })
  }
  const callerIdentity = { name: caller.user.fullName || caller.user.login, email: caller.user.email }
  const author = identity(body?.author)
  const committer = identity(body?.committer)
  const commitSha = addSnapshot(context.state, repo, next)
  repo.branches.set(target, { head: commitSha })
  const message = stringField(body, 'message') || 'Update files'
  const who = { author: author ?? committer ?? callerIdentity, committer: committer ?? author ?? callerIdentity }
  const [first, ...rest] = ops
  repo.pushed.push({
    sha: commitSha,
    branch: target,
    from,
    path: first?.path ?? '',
    content: first?.content ?? '',
    message,
    ...who,
    pusher: caller.user.login,
    moreFiles: rest.map(({ path, content }) => ({ path, content })),
  })
  const commit = { sha: commitSha, parent: fromBranch.head, message, ...who }
  const rendered = ops.map((op) => fileResponseJson(context.site, repo, commit, op, target))
  return json(
    { files: rendered.map((r) => r.content), commit: rendered[0]?.commit, verification: rendered[0]?.verification },
    201,
  )
}
