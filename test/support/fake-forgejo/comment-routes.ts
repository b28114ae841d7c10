/**
 * The fake forge's comment routes (docs/forgejo.md §3.18): a comment on an
 * issue or PR, and a reaction to one, both needing a token with
 * `write:issue`. Anyone who can read the repo may comment and react, as on
 * Forgejo; a reaction the user already gave answers 200 with it, a new one
 * 201. The PR's number is its issue's; an unknown number or comment is a 404.
 */
import { addComment, findComment, type RepoState, repoKey } from '../../../adapters/memory/forge-state.ts'
import {
  apiError,
  bodyObject,
  json,
  notFound,
  permissionFor,
  type Route,
  type RouteContext,
  stringField,
} from './context.ts'
import { CREATED, repoUrl } from './render.ts'

/** Forgejo's allowed reactions (`[ui] REACTIONS`, default). */
const REACTIONS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes']

function visibleRepo(context: RouteContext): RepoState | null {
  const repo = context.state.repos.get(repoKey(context.params.owner ?? '', context.params.repo ?? ''))
  if (repo === undefined || permissionFor(repo, context.caller?.user ?? null) === 'none') return null
  return repo
}

/** A stored comment as `Comment` (swagger.v1.json). */
function commentJson(
  context: RouteContext,
  repo: RepoState,
  comment: { id: number; pr: number; user: string; body: string },
): Record<string, unknown> {
  const html = `${repoUrl(context.site, repo)}/pulls/${comment.pr}`
  const user = context.state.users.get(comment.user.toLowerCase())
  return {
    id: comment.id,
    html_url: `${html}#issuecomment-${comment.id}`,
    pull_request_url: html,
    issue_url: '',
    user: user === undefined ? null : context.render.userJson(user),
    original_author: '',
    original_author_id: 0,
    body: comment.body,
    assets: [],
    created_at: CREATED,
    updated_at: CREATED,
  }
}

export function commentRoutes(): Route[] {
  return [
    {
      method: 'POST',
      template: '/repos/{owner}/{repo}/issues/{index}/comments',
      auth: 'issue',
      handler(context) {
        const repo = visibleRepo(context)
        if (repo === null) return notFound(context, 'repository does not exist')
        const index = Number(context.params.index)
        if (!repo.pulls.has(index))
          return notFound(context, `issue does not exist [id: 0, repo_id: 0, index: ${index}]`)
        const body = stringField(bodyObject(context.body), 'body')
        if (body === undefined) return apiError(context, 422, '[Body]: Required')
        const caller = context.caller?.user
        if (caller === undefined) return apiError(context, 401, 'token is required')
        const comment = addComment(context.state, repo, index, caller.login, body)
        return json(commentJson(context, repo, comment), 201)
      },
    },
    {
      method: 'POST',
      template: '/repos/{owner}/{repo}/issues/comments/{id}/reactions',
      auth: 'issue',
      handler(context) {
        const repo = visibleRepo(context)
        if (repo === null) return notFound(context, 'repository does not exist')
        const comment = findComment(repo, Number(context.params.id))
        if (comment === undefined) return notFound(context, `comment does not exist [id: ${context.params.id}]`)
        const content = stringField(bodyObject(context.body), 'content') ?? ''
        if (!REACTIONS.includes(content)) return apiError(context, 403, `'${content}' is not an allowed reaction`)
        const caller = context.caller?.user
        if (caller === undefined) return apiError(context, 401, 'token is required')
        const given = comment.reactions.some((r) => r.user === caller.login && r.content === content)
        if (!given) comment.reactions.push({ user: caller.login, content })
        return json({ user: context.render.userJson(caller), content, created_at: CREATED }, given ? 200 : 201)
      },
    },
  ]
}
