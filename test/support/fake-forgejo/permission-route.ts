/**
 * The fake forge's collaborator permission route (docs/forgejo.md §3.15):
 * effective access, the site admin and the owner as `owner`, a
 * non-collaborator `read` on a public repo and `none` on a private one; the
 * caller must be a site admin, a repo admin or the user asked about (403
 * otherwise); 404 for an unknown repo or user.
 */
import { repoKey } from '../../../adapters/memory/forge-state.ts'
import { apiError, json, notFound, permissionFor, RANK, type Route } from './context.ts'

export function permissionRoutes(): Route[] {
  return [
    {
      method: 'GET',
      template: '/repos/{owner}/{repo}/collaborators/{collaborator}/permission',
      auth: 'repository',
      handler(context) {
        const caller = context.caller?.user ?? null
        const repo = context.state.repos.get(repoKey(context.params.owner ?? '', context.params.repo ?? ''))
        if (repo === undefined || permissionFor(repo, caller) === 'none')
          return notFound(context, 'repository does not exist')
        const user = context.state.users.get((context.params.collaborator ?? '').toLowerCase())
        if (user === undefined)
          return notFound(context, `user redirect does not exist [name: ${context.params.collaborator}]`)
        const self = caller?.login.toLowerCase() === user.login.toLowerCase()
        if (!self && RANK[permissionFor(repo, caller)] < RANK.admin)
          return apiError(
            context,
            403,
            'Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own',
          )
        const permission = permissionFor(repo, user)
        return json({ permission, role_name: permission, user: context.render.userJson(user) })
      },
    },
  ]
}
