/**
 * The forge writer's comment calls (docs/forgejo.md §3.18): the service
 * account's `+1` on a command's comment and its one-line reply, both on the
 * `write:issue` scope, run against every adapter.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import {
  BUSY,
  codeOf,
  contractForgeSeed,
  type ForgeHarness,
  type MakeForge,
  MISSING,
  READER_TOKEN,
  SERVICE_LOGIN,
  SERVICE_TOKEN,
  WIDGETS,
} from './forge.fixtures.ts'

export function forgeCommentsContract(name: string, make: MakeForge): void {
  describe(`ForgeWriter comments contract (${name})`, () => {
    let harness: ForgeHarness
    beforeEach(async () => {
      harness = await make(contractForgeSeed())
    })
    afterEach(async () => {
      await harness.cleanup()
    })

    it("adds the account's +1 to a comment once, however often it is asked", async () => {
      const id = await harness.addComment(WIDGETS, 42, 'alice', '@review-classifier label datetime match')
      const writer = harness.forge.forAccount(SERVICE_TOKEN)
      await writer.reactToComment(WIDGETS, id, '+1')
      await writer.reactToComment(WIDGETS, id, '+1')
      const [comment] = await harness.comments(WIDGETS, 42)
      expect(comment?.reactions).toEqual([{ user: SERVICE_LOGIN, content: '+1' }])
    })

    it('posts a comment on a PR that the forge keeps as the account', async () => {
      const posted = await harness.forge.forAccount(SERVICE_TOKEN).createComment(WIDGETS, 42, 'Not waived: why.')
      const comments = await harness.comments(WIDGETS, 42)
      expect(comments).toMatchObject([{ id: posted.id, user: SERVICE_LOGIN, body: 'Not waived: why.' }])
      expect(posted.htmlUrl ?? '').toContain('/acme/widgets/pulls/42')
    })

    it.each([
      ['an unknown comment', WIDGETS, SERVICE_TOKEN, 'not_found'],
      ['a comment in an unknown repo', MISSING, SERVICE_TOKEN, 'not_found'],
      ['with a token without write:issue', WIDGETS, READER_TOKEN, 'forbidden'],
      ['with an unknown token', WIDGETS, 'f'.repeat(40), 'unauthorized'],
    ] as const)('refuses a reaction to %s, and adds none', async (label, repo, token, code) => {
      const id = await harness.addComment(WIDGETS, 42, 'alice', 'hello')
      const target = label === 'an unknown comment' ? id + 1000 : id
      expect(await codeOf(harness.forge.forAccount(token).reactToComment(repo, target, '+1'))).toBe(code)
      expect((await harness.comments(WIDGETS, 42))[0]?.reactions).toEqual([])
    })

    it.each([
      ['on an unknown PR', WIDGETS, 999, SERVICE_TOKEN, 'not_found'],
      ['in an unknown repo', MISSING, 42, SERVICE_TOKEN, 'not_found'],
      ['with a token without write:issue', WIDGETS, 42, READER_TOKEN, 'forbidden'],
      ['with an unknown token', WIDGETS, 42, 'f'.repeat(40), 'unauthorized'],
    ] as const)('refuses a comment %s, and stores none', async (_, repo, pr, token, code) => {
      expect(await codeOf(harness.forge.forAccount(token).createComment(repo, pr, 'x'))).toBe(code)
      expect(await harness.comments(WIDGETS, 42)).toEqual([])
      expect(await harness.comments(BUSY, 1)).toEqual([])
    })
  })
}
