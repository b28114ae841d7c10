/**
 * Small builders for tests: a valid, typical value of each shape, with the
 * fields a test cares about overridden. Defaults are plain and fixed, so a
 * test that depends on one says so by overriding it.
 */

import type { SeedPull, SeedRepo } from '../../adapters/memory/forge.ts'
import type { RunRecord } from '../../core/run/run-record.ts'
import type {
  Answer,
  Classification,
  RepoRef,
  Row,
  RowError,
  RunReply,
  RunRequest,
  Settings,
  Usage,
} from '../../core/wire/types.ts'
import type { NewBranchCommit } from '../../ports/forge.ts'
import type { ClassifyInput } from '../../ports/model-runtime.ts'

/** A builder's overrides: a field given as `undefined` is left out, as a JSON document would leave it. */
export type Overrides<T> = { [K in keyof T]?: T[K] | undefined }

/** `base` with `overrides` applied, the fields overridden with `undefined` removed. */
export function withOverrides<T extends object>(base: T, overrides: Overrides<T>): T {
  const built = new Map<string, unknown>(Object.entries(base))
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) built.delete(key)
    else built.set(key, value)
  }
  // Only optional fields may be left out: a test that drops a required one means to build a bad value.
  return Object.fromEntries(built) as T
}

export function aRepoRef(overrides: Partial<RepoRef> = {}): RepoRef {
  return { owner: 'acme', name: 'widgets', ...overrides }
}

export function aClassification(overrides: Partial<Classification> = {}): Classification {
  return {
    name: 'datetime',
    description: 'All datetimes carry time zone information.',
    threshold: 80,
    polarity: 'positive',
    ...overrides,
  }
}

export function anAnswer(overrides: Partial<Answer> = {}): Answer {
  return { verdict: 'match', certainty: 90, reason: 'Every new timestamp carries a zone.', ...overrides }
}

export function aUsage(overrides: Partial<Usage> = {}): Usage {
  return { input: 1200, output: 40, cache_read: 0, cache_write: 0, ...overrides }
}

/** A counted, passing row for {@link aClassification}'s rule. */
export function aRow(overrides: Partial<Row> = {}): Row {
  return {
    name: 'datetime',
    polarity: 'positive',
    threshold: 80,
    verdict: 'match',
    certainty: 90,
    reason: 'Every new timestamp carries a zone.',
    counted: true,
    fails: false,
    error: null,
    ...overrides,
  }
}

export function aRowError(overrides: Partial<RowError> = {}): RowError {
  return { kind: 'timeout', detail: 'no answer within 180 s', ...overrides }
}

/** A row without an answer: {@link aRowError}'s timeout, nothing counted. */
export function anUnansweredRow(overrides: Partial<Row> = {}): Row {
  return {
    name: 'datetime',
    polarity: 'positive',
    threshold: 80,
    verdict: null,
    certainty: null,
    reason: null,
    counted: false,
    fails: false,
    error: aRowError(),
    ...overrides,
  }
}

/** A recorded review of PR 7 that was approved, with {@link aRow}'s row. */
export function aRunRecord(overrides: Overrides<RunRecord> = {}): RunRecord {
  return withOverrides(
    {
      id: 'run-1',
      trigger: 'review',
      repo: 'acme/widgets',
      pr: 7,
      requester: 'alice',
      head_sha: 'a'.repeat(40),
      started_unix: 1_767_225_600,
      finished_unix: 1_767_225_660,
      outcome: 'approved',
      rows: [aRow()],
      overall: 'approve',
      review_url: 'https://forge.example/acme/widgets/pulls/7#issuecomment-1',
    },
    overrides,
  )
}

/** The settings in force with no document stored. */
export function aSettings(overrides: Partial<Settings> = {}): Settings {
  return {
    model: 'haiku',
    effort: null,
    max_concurrent_reviews: 2,
    runtime: 'api-key',
    acp: null,
    repo_runtimes: {},
    budget: null,
    rules_change_report: true,
    waivers_by_author: false,
    max_output_tokens: 1024,
    ...overrides,
  }
}

export function aRunRequest(overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    id: 'run-1',
    trigger: 'try-out',
    repo: 'acme/widgets',
    pr: 42,
    title: 'Add timezone to timestamps',
    commits: [{ message: 'Add timezone to timestamps\n\nEvery timestamp is UTC now.' }],
    diff: 'diff --git a/app.py b/app.py\nindex 1111111..2222222 100644\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-now()\n+now(UTC)\n',
    classifications: [aClassification()],
    runtime: 'api-key',
    model: 'haiku',
    effort: null,
    acp: null,
    max_output_tokens: 1024,
    ...overrides,
  }
}

export function aRunReply(overrides: Partial<RunReply> = {}): RunReply {
  return { id: 'run-1', ok: true, rows: [aRow()], overall: 'approve', ...overrides }
}

/** A memory-forge PR with one commit and a small diff. */
export function aSeedPull(overrides: Partial<SeedPull> = {}): SeedPull {
  return {
    number: 42,
    title: 'Add timezone to timestamps',
    commits: ['Add timezone to timestamps'],
    diff: 'diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-now()\n+now(UTC)\n',
    ...overrides,
  }
}

/** A PR's head commit in the seeded forges of the end-to-end tests: its number in hex, repeated to 40 digits. */
export function headOf(pr: number): string {
  return pr.toString(16).padStart(2, '0').repeat(20)
}

/** PR `pr` of a seeded forge, told apart by its number: its title, head ({@link headOf}), commit and diff name it. */
export function aNumberedPull(pr: number, overrides: Partial<SeedPull> = {}): SeedPull {
  return aSeedPull({
    number: pr,
    title: `Change ${pr}`,
    headSha: headOf(pr),
    commits: [`Change ${pr}\n\nBody of change ${pr}.`],
    diff: `diff --git a/app.py b/app.py\nindex 1111111..2222222 100644\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-now()\n+now(UTC)  # change ${pr}\n`,
    ...overrides,
  })
}

/**
 * The rules file most tests seed: two rules, one of each polarity (`datetime` wanted, `no-ads` a
 * violation), as a team would write them in `.hyperhive/review-classifier.yml`.
 */
export const TWO_RULES_YAML = `classifications:
  - name: datetime
    description: All datetimes carry time zone information.
    polarity: positive
    threshold: 80
  - name: no-ads
    description: A commit message advertises an AI model.
    polarity: negative
    threshold: 90
`

/** A memory-forge repo `acme/widgets` with a rules file, PR 42 and `review-classifier` as a write collaborator. */
export function aSeedRepo(overrides: Partial<SeedRepo> = {}): SeedRepo {
  return {
    owner: 'acme',
    name: 'widgets',
    files: {
      '.hyperhive/review-classifier.yml':
        'classifications:\n  - name: datetime\n    description: All datetimes carry time zone information.\n    polarity: positive\n    threshold: 80\n',
    },
    pulls: [aSeedPull()],
    collaborators: { 'review-classifier': 'write' },
    ...overrides,
  }
}

/** The one commit an open-a-PR pushes on a branch of its own: the JSON rules file, new. */
export function aBranchCommit(overrides: Partial<NewBranchCommit> = {}): NewBranchCommit {
  return {
    branch: 'review-classifier/alice-0000abcd',
    from: 'main',
    path: '.hyperhive/review-classifier.json',
    content: '{"classifications":[]}\n',
    sha: null,
    message: 'Add review classifications',
    author: { name: 'Alice Example', email: 'alice@noreply.forge.example' },
    committer: { name: 'Review classifier', email: 'review-classifier@noreply.forge.example' },
    ...overrides,
  }
}

export function aClassifyInput(overrides: Partial<ClassifyInput> = {}): ClassifyInput {
  return {
    runId: 'run-test',
    system: 'You classify pull requests.',
    context: '# acme/widgets PR 42\n\n## Commit 1\n\nAdd timezone\n\n## Diff\n\n+now(UTC)\n',
    question: 'All datetimes carry time zone information.',
    model: 'haiku',
    effort: null,
    maxOutputTokens: 1024,
    acp: null,
    apiKey: 'sk-test-not-a-real-key',
    deadlineMs: 1000,
    labels: { repo: 'acme/widgets', pr: 42 },
    ...overrides,
  }
}
