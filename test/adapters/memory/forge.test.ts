import { describe, expect, it } from 'bun:test'
import { createMemoryForge } from '../../../adapters/memory/forge.ts'
import { appError, isAppError } from '../../../core/base/errors.ts'
import { forgeContract } from '../../ports/forge.contract.ts'
import { aRepoRef, aSeedPull, aSeedRepo } from '../../support/builders.ts'

forgeContract('memory', async (seed) => {
  const forge = createMemoryForge(seed)
  return {
    forge,
    reviews: async (repo, pr) => forge.reviews(repo, pr),
    statuses: async (repo, sha) => forge.statuses(repo, sha),
    changeFile: async (repo, branch, path, content) => forge.changeFile(repo, branch, path, content),
    addComment: async (repo, pr, login, body) => forge.addComment(repo, pr, login, body),
    comments: async (repo, pr) => forge.comments(repo, pr),
    accountFlags: async (login) => forge.accountFlags(login),
    cleanup: async () => undefined,
  }
})

describe('createMemoryForge', () => {
  it('rejects every call with the simulated failure until it is cleared', async () => {
    const forge = createMemoryForge({ repos: [aSeedRepo()] })
    forge.simulateFailure(appError('unavailable', 'forge down'))
    const failure = await forge.getRepository(aRepoRef()).catch((error: unknown) => error)
    expect(isAppError(failure, 'unavailable')).toBe(true)
    forge.simulateFailure(null)
    expect((await forge.getRepository(aRepoRef())).fullName).toBe('acme/widgets')
  })

  it('moves a PR head with upsertPull and keeps what the update leaves out', async () => {
    const forge = createMemoryForge({ repos: [aSeedRepo()] })
    forge.upsertPull(aRepoRef(), { number: 42, headSha: 'a'.repeat(40) })
    expect(await forge.getPullRequest(aRepoRef(), 42)).toMatchObject({
      headSha: 'a'.repeat(40),
      title: aSeedPull().title,
    })
  })

  it('looks repos and users up case-insensitively, as Forgejo does', async () => {
    const forge = createMemoryForge({ repos: [aSeedRepo()], users: [{ login: 'Alice' }] })
    expect((await forge.getRepository({ owner: 'ACME', name: 'Widgets' })).fullName).toBe('acme/widgets')
    expect((await forge.getUser('alice'))?.login).toBe('Alice')
  })

  it('records pushed commits with their author, committer and pusher', async () => {
    const forge = createMemoryForge({
      repos: [aSeedRepo()],
      users: [{ login: 'review-classifier' }],
      tokens: [{ login: 'review-classifier', name: 't', token: 'tok' }],
    })
    const author = { name: 'Alice', email: 'alice@noreply.forge.example' }
    const committer = { name: 'Review classifier', email: 'review-classifier@noreply.forge.example' }
    await forge.forAccount('tok').commitFile(aRepoRef(), {
      branch: 'b',
      from: 'main',
      path: 'x',
      content: 'y',
      sha: null,
      message: 'm',
      author,
      committer,
    })
    expect(forge.pushedCommits(aRepoRef())).toMatchObject([
      {
        branch: 'b',
        from: 'main',
        path: 'x',
        content: 'y',
        message: 'm',
        author,
        committer,
        pusher: 'review-classifier',
      },
    ])
  })

  it('gives a file the git blob sha of its content', async () => {
    const forge = createMemoryForge({ repos: [aSeedRepo({ files: { 'hello.txt': 'hello\n' } })] })
    // `printf 'hello\n' | git hash-object --stdin`
    expect((await forge.getFileContent(aRepoRef(), 'hello.txt', 'main'))?.sha).toBe(
      'ce013625030ba8dba906f756967f9e9ca394464a',
    )
  })
})
