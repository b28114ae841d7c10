/**
 * The forge the forge contract runs against: one seed every adapter's harness
 * builds (the memory forge directly, the Forgejo adapter behind a fake forge
 * server), and the harness shape the contract needs.
 */

import type {
  AccountFlags,
  ForgeSeed,
  SeedPull,
  SeedRepo,
  StoredComment,
  StoredReview,
  StoredStatus,
} from '../../adapters/memory/forge.ts'
import { isAppError } from '../../core/base/errors.ts'
import type { RepoRef } from '../../core/wire/types.ts'
import type { Forge } from '../../ports/forge.ts'

export type ForgeHarness = {
  forge: Forge
  /** Reviews the forge stored on a PR, oldest first. */
  reviews(repo: RepoRef, pr: number): Promise<StoredReview[]>
  /** Commit statuses the forge stored on a commit (its full sha), oldest first. */
  statuses(repo: RepoRef, sha: string): Promise<StoredStatus[]>
  /** Writes (or with `null` deletes) a file on a branch behind the adapter's back. */
  changeFile(repo: RepoRef, branch: string, path: string, content: string | null): Promise<void>
  /** Adds a comment by `login` on PR `pr` behind the adapter's back, as if written on the forge's page; its id. */
  addComment(repo: RepoRef, pr: number, login: string, body: string): Promise<number>
  /** The comments on PR `pr`, oldest first, with their reactions. */
  comments(repo: RepoRef, pr: number): Promise<StoredComment[]>
  /** The account's flags as the forge holds them, which no port read shows; `null` for an unknown user. */
  accountFlags(login: string): Promise<AccountFlags | null>
  cleanup(): Promise<void>
}

/** Builds a forge holding exactly `seed`, fresh for each test. */
export type MakeForge = (seed: ForgeSeed) => Promise<ForgeHarness>

export const SERVICE_LOGIN = 'review-classifier'
export const SERVICE_TOKEN = '5e7a1c0d9b2f4e6a8c0e2f4a6b8d0f1a3c5e7b9d'
/** `bob` reads `acme/widgets` only. */
export const READER_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
/** `carol`'s token has only `read:user`. */
export const NARROW_TOKEN = 'ca401ca401ca401ca401ca401ca401ca401ca401'

export const WIDGETS: RepoRef = { owner: 'acme', name: 'widgets' }
export const EMPTY: RepoRef = { owner: 'acme', name: 'empty' }
export const BUSY: RepoRef = { owner: 'acme', name: 'busy' }
export const QUIET: RepoRef = { owner: 'acme', name: 'quiet' }
export const MISSING: RepoRef = { owner: 'acme', name: 'no-such-repo' }

export const RULES_PATH = '.hyperhive/review-classifier.yml'
export const RULES_TEXT =
  'classifications:\n  - name: datetime\n    description: All datetimes carry time zone information.\n    polarity: positive\n    threshold: 80\n'

/** More than two pages at the forge's maximum page size of 50. */
export const MANY = 120
export const DIFF_42 =
  'diff --git a/app.py b/app.py\nindex 1111111..2222222 100644\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-now()\n+now(UTC)\n'
/** A PR of {@link QUIET} whose diff is five times the read cap: the fakes generate it, never holding it whole. */
export const HUGE_PR = 2
export const HUGE_DIFF_BYTES = 50_000_000
/** A PR of {@link QUIET} whose diff is 1.5 MB, to read with a smaller cap or whole. */
export const LARGE_PR = 3
export const LARGE_DIFF_BYTES = 1_500_000
export const HEAD_42 = '4b7e2f0c9d1a3b5c7e9f1a2b3c4d5e6f7a8b9c0d'

/** Sixty repos with one open PR each, beyond one page of repos. */
export const SPREAD: RepoRef[] = Array.from({ length: 60 }, (_, i) => ({
  owner: 'spread',
  name: `repo-${String(i).padStart(2, '0')}`,
}))

function busyPulls(): SeedPull[] {
  // Every third one closed, so "open only" and "all pages" are both tested.
  return Array.from({ length: MANY }, (_, i) => ({
    number: i + 1,
    title: `Busy ${i + 1}`,
    state: i % 3 === 0 ? 'closed' : 'open',
  }))
}

export function contractForgeSeed(): ForgeSeed {
  const repos: SeedRepo[] = [
    {
      ...WIDGETS,
      private: true,
      files: { [RULES_PATH]: RULES_TEXT, 'README.md': '# Widgets\n', 'docs/guide.md': 'Guide\n' },
      branches: { develop: { 'README.md': '# Widgets (develop)\n' } },
      pulls: [
        {
          number: 42,
          title: 'Add timezone to timestamps',
          author: 'alice',
          headRef: 'tz-fix',
          headSha: HEAD_42,
          commits: ['First: add zone\n\nBody line.', 'Second: tests', 'Third: docs'],
          diff: DIFF_42,
        },
        {
          number: 43,
          title: 'Long history',
          author: 'alice',
          commits: Array.from({ length: MANY }, (_, i) => `commit ${i + 1}`),
        },
        { number: 44, title: 'By the service account', author: SERVICE_LOGIN },
        { number: 7, title: 'Old and merged', state: 'closed', merged: true },
      ],
      collaborators: { [SERVICE_LOGIN]: 'write', bob: 'read' },
    },
    { ...EMPTY, empty: true },
    { ...BUSY, pulls: busyPulls(), collaborators: { [SERVICE_LOGIN]: 'read' } },
    {
      ...QUIET,
      pulls: [
        { number: 1, state: 'closed' },
        // Closed, so they list nowhere; only their diffs are read.
        { number: HUGE_PR, state: 'closed', diffBytes: HUGE_DIFF_BYTES },
        { number: LARGE_PR, state: 'closed', diffBytes: LARGE_DIFF_BYTES },
      ],
    },
    ...SPREAD.map((repo) => ({ ...repo, pulls: [{ number: 1 }] })),
  ]
  return {
    users: [
      { login: 'swarm-controller', admin: true, email: 'swarm-controller@example.org' },
      { login: SERVICE_LOGIN, fullName: 'Review classifier', email: 'review-classifier@services.hyperhive.local' },
      { login: 'alice', fullName: 'Alice Example', email: 'alice@example.org' },
      { login: 'bob', email: 'bob@example.org' },
      { login: 'carol', email: 'carol@example.org' },
    ],
    tokens: [
      {
        login: SERVICE_LOGIN,
        name: 'swarm-review-classifier',
        token: SERVICE_TOKEN,
        scopes: ['write:repository', 'write:issue'],
      },
      { login: 'bob', name: 'bob', token: READER_TOKEN, scopes: ['write:repository'] },
      { login: 'carol', name: 'carol', token: NARROW_TOKEN, scopes: ['read:user'] },
    ],
    repos,
  }
}

/** The error code a call rejects with, `resolved` when it doesn't reject. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    return isAppError(error) ? error.code : `not an AppError: ${String(error)}`
  }
  return 'resolved'
}

export function fullName(repo: RepoRef): string {
  return `${repo.owner}/${repo.name}`
}
