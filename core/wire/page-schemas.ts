/**
 * The bodies the operator's pages send and read (docs/behaviour.md, "Swarm
 * UI" and "Try-out"): the run record of the runs route, the try-out and
 * open-a-PR requests and answers, the pulls and rules the try-out page
 * offers, and the pages' own config. Part of the schemas of schemas.ts, in a
 * module of its own so the pages can bundle it and check each answer against
 * its route's schema: nothing here names a token count or a price.
 *
 * TypeBox's functions come in as a namespace, not its `Type` builder object:
 * the page bundles this module, and the builder would bring every kind of
 * schema TypeBox has (some 43 KB minified) where the functions used here are
 * a few.
 */
import * as Type from '@sinclair/typebox'
import { MAX_CLASSIFICATIONS, REPEAT_MAX, REPLAY_MAX } from './limits.ts'
import {
  ClassificationSchema,
  literals,
  nullable,
  OverallSchema,
  Percent,
  RecordedRowSchema,
  VerdictSchema,
} from './row-schemas.ts'
import { ReliabilityScoreSchema, TryOutExamplesSchema } from './score-schemas.ts'

export const RUN_TRIGGERS = ['review', 'try-out'] as const
/** What a run-store entry may say started it: a run's triggers, and a waiver's re-post, which asks no model. */
export const RECORD_TRIGGERS = [...RUN_TRIGGERS, 'waiver'] as const
export const REVIEW_OUTCOMES = ['approved', 'changes-requested', 'no-verdict', 'queue-full', 'post-failed'] as const
export const TRY_OUT_OUTCOMES = ['done', 'failed'] as const
export const TRY_OUT_STATUSES = ['running', ...TRY_OUT_OUTCOMES] as const
export const REPLAY_LINE_STATUSES = ['waiting', ...TRY_OUT_STATUSES] as const

/** The most places a redaction summary lists; the rest are only counted (`places`). */
export const REDACTION_PLACES_MAX = 50

const RedactionCommon = {
  kind: Type.String({ description: "The rule's kind, as the placeholder names it." }),
  n: Type.Integer({
    minimum: 1,
    description: "The placeholder's number: the same secret has the same n everywhere in the run.",
  }),
}

/** Where one secret was taken out (core/redaction/redact.ts, RedactionFinding): never its value. */
export const RedactionFindingSchema = Type.Union([
  Type.Object({ ...RedactionCommon, part: Type.Literal('title') }),
  Type.Object({ ...RedactionCommon, part: Type.Literal('commit'), commit: Type.Integer({ minimum: 1 }) }),
  Type.Object({
    ...RedactionCommon,
    part: Type.Literal('diff'),
    path: nullable(Type.String(), 'The file; null before the first file.'),
    line: nullable(Type.Integer({ minimum: 0 }), "The line's number in the file; null on a file header."),
    side: nullable(literals(['new', 'old'] as const), 'new for a + or context line, old for a - line.'),
  }),
])

/** What a run's redaction took out of the shared context before the prompt was built: counts and places, no value. */
export const RedactionSchema = Type.Object({
  redacted: Type.Integer({ minimum: 0, description: 'How many distinct secrets were replaced by placeholders.' }),
  places: Type.Integer({ minimum: 0, description: 'How many places they were taken out of.' }),
  findings: Type.Array(RedactionFindingSchema, {
    maxItems: REDACTION_PLACES_MAX,
    description: "The first places, in the context's order (title, commits, diff).",
  }),
})

/** One waiver of a failing rule, for one head of a PR (docs/behaviour.md, "Waivers and labels"). */
export const WaiverSchema = Type.Object({
  rule: Type.String(),
  by: Type.String({ description: 'The forge login that waived it.' }),
  reason: Type.String(),
  head_sha: Type.String({ description: 'The head the waiver belongs to; it never carries to another.' }),
})

/** One finished run, as the run store holds it and the runs route returns it. */
export const RunRecordSchema = Type.Object({
  id: Type.String({ description: "A try-out's is the id its POST answered with." }),
  trigger: literals(RECORD_TRIGGERS),
  repo: Type.String({ description: 'owner/name' }),
  pr: Type.Optional(Type.Integer({ description: 'Absent for a try-out against the examples, which ran several.' })),
  labelled_prs: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1 }), { description: 'The labelled PRs a try-out against the examples ran.' }),
  ),
  requester: Type.String({ description: 'The swarm UI user of a try-out, the forge user who requested a review.' }),
  head_sha: Type.Optional(Type.String({ description: "The commit the run read; absent when the PR wasn't read." })),
  started_unix: Type.Number(),
  finished_unix: Type.Number(),
  outcome: literals([...REVIEW_OUTCOMES, ...TRY_OUT_OUTCOMES]),
  detail: Type.Optional(
    Type.String({
      description:
        'The reason, for every outcome but approved, changes-requested and done; for approved and changes-requested only a refused commit status.',
    }),
  ),
  rows: Type.Optional(Type.Array(RecordedRowSchema, { description: 'Present when the classifier answered.' })),
  overall: Type.Optional(OverallSchema),
  review_url: Type.Optional(Type.String({ description: 'The posted review, when the forge names its URL.' })),
  redacted: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'How many distinct secrets were redacted from what the model saw; absent when the classifier said nothing (an older build).',
    }),
  ),
  waived: Type.Optional(
    Type.Array(WaiverSchema, {
      description: "A waiver's re-post: every waiver in force on its head, this one last.",
    }),
  ),
})

/** `GET /ui/config.json`: the pages' own settings. */
export const UiConfigSchema = Type.Object({
  forge_url: nullable(Type.String(), "The forge's web root, for links to PRs and commits; null without FORGE_URL."),
})

/** `GET /api/review-classifier/runs`. */
export const RunListSchema = Type.Array(RunRecordSchema)

/** `GET /api/pulls/repos`: the repos the try-out page suggests. */
export const PullReposSchema = Type.Array(Type.String(), { description: 'owner/name, sorted by name ignoring case.' })

/** One open PR, as `GET /api/pulls` lists it for the try-out page. */
export const PullSummarySchema = Type.Object({
  number: Type.Integer(),
  title: Type.String(),
  head_sha: Type.String({ description: "The PR's head commit; empty when the forge can't resolve it." }),
})

/** `GET /api/pulls?repo=owner/name`. */
export const PullListSchema = Type.Array(PullSummarySchema, { description: 'Highest number first.' })

/** `GET /api/review-classifier/rules?repo=owner/name`: in the try-out POST's shape, to post back as they are. */
export const RepoRulesSchema = Type.Object(
  {
    path: Type.String({ description: 'The rules file read.' }),
    branch: Type.String({ description: 'The default branch.' }),
    commit: Type.String({ description: 'The commit the file was read at: the default branch head.' }),
    classifications: Type.Array(ClassificationSchema, { description: "In the file's order." }),
  },
  { description: "A repo's rules as its default branch holds them." },
)

const TryOutClassificationsSchema = Type.Array(ClassificationSchema, {
  minItems: 1,
  maxItems: MAX_CLASSIFICATIONS,
  description: "In the rules file's shape, with the same checks.",
})

/**
 * `POST /api/review-classifier/try-out`, for the document: the body itself
 * is read by `parseTryOutBody`. One PR (`pr`, optionally asked `repeat`
 * times), or the repo's last `replay` PRs instead of `pr`.
 */
export const TryOutRequestSchema = Type.Union(
  [
    Type.Object(
      {
        repo: Type.String({ description: 'owner/name' }),
        pr: Type.Integer({ minimum: 1, description: 'The PR number; an open, closed or merged PR all work.' }),
        repeat: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: REPEAT_MAX,
            description: 'Ask every classification this many times on the PR, to see how stable its answer is.',
          }),
        ),
        classifications: TryOutClassificationsSchema,
      },
      { description: 'The classifications to run against one PR.' },
    ),
    Type.Object(
      {
        repo: Type.String({ description: 'owner/name' }),
        replay: Type.Integer({
          minimum: 1,
          maximum: REPLAY_MAX,
          description: "Instead of pr: run against the repo's last this many PRs, open or merged, newest first.",
        }),
        classifications: TryOutClassificationsSchema,
      },
      { description: "The classifications to run against the repo's recent PRs." },
    ),
    Type.Object(
      {
        repo: Type.String({ description: 'owner/name' }),
        examples: Type.Literal(true, {
          description: 'Instead of pr: run against every labelled PR of the repo’s examples file, and score them.',
        }),
        repeat: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: REPEAT_MAX,
            description: 'Ask every classification this many times per PR.',
          }),
        ),
        classifications: TryOutClassificationsSchema,
      },
      { description: "The classifications to score against the repo's labelled PRs." },
    ),
  ],
  { description: 'The classifications to run against a PR, or against the repo’s recent PRs.' },
)

export const TryOutAcceptedSchema = Type.Object({
  id: Type.String({ description: 'Read the result at /api/review-classifier/try-out/{id}.' }),
})

/** How many of a classification's answers came out each way. */
export const VerdictCountsSchema = Type.Object({
  match: Type.Integer({ minimum: 0 }),
  'no-match': Type.Integer({ minimum: 0 }),
  'not-applicable': Type.Integer({ minimum: 0 }),
  unanswered: Type.Integer({ minimum: 0 }),
})

/** One classification of a repeated try-out: its answers in the order asked, and what they add up to. */
export const RepeatedClassificationSchema = Type.Object({
  name: Type.String(),
  answers: Type.Array(RecordedRowSchema, {
    description: 'One per run, in the order asked; while the try-out runs, the ones heard so far.',
  }),
  flips: Type.Integer({
    minimum: 0,
    description:
      'How many times the counted outcome (pass, fail, uncounted) changed from one answer to the next (unanswered ones skipped): what would flip the review; 0 for a stable rule.',
  }),
  verdict_flips: Type.Integer({
    minimum: 0,
    description:
      'How many times the raw verdict changed from one answer to the next, counted or not (unanswered ones skipped).',
  }),
  verdicts: VerdictCountsSchema,
  certainty: nullable(
    Type.Object({
      min: Percent(),
      median: Type.Number({ minimum: 0, maximum: 100 }),
      max: Percent(),
    }),
    'Over the answered ones; null when none was answered.',
  ),
})

export const TryOutRepeatSchema = Type.Object(
  {
    count: Type.Integer({
      minimum: 1,
      maximum: REPEAT_MAX,
      description: 'How many times each classification is asked.',
    }),
    classifications: Type.Array(RepeatedClassificationSchema, { description: 'In the order posted.' }),
  },
  { description: 'Present when the POST had repeat.' },
)

/** One PR of a replayed try-out. */
export const ReplayLineSchema = Type.Object({
  pr: Type.Integer(),
  title: Type.String(),
  url: Type.String({ description: "The PR's page on the forge." }),
  status: literals(REPLAY_LINE_STATUSES, 'waiting: not started yet; then as a try-out’s status.'),
  head_sha: nullable(Type.String(), 'The head the run read; the one the listing named until then.'),
  rows: nullable(Type.Array(RecordedRowSchema), 'The rows finished so far while running, then the reply’s.'),
  overall: nullable(OverallSchema),
  detail: nullable(Type.String(), "Why this PR's run failed (its PR couldn't be read, no classifier answered, …)."),
  redaction: Type.Optional(RedactionSchema),
})

export const TryOutReplaySchema = Type.Object(
  {
    count: Type.Integer({ minimum: 1, maximum: REPLAY_MAX, description: 'How many PRs were asked for.' }),
    pulls: Type.Array(ReplayLineSchema, {
      description: 'Newest first; fewer than count when the repo has fewer open or merged PRs.',
    }),
  },
  { description: 'Present when the POST had replay.' },
)

/** `GET /api/review-classifier/try-out/{id}`. */
export const TryOutViewSchema = Type.Object(
  {
    id: Type.String(),
    status: literals(TRY_OUT_STATUSES),
    repo: Type.String({ description: 'owner/name' }),
    pr: nullable(Type.Integer(), 'null for a replay or a try-out against the examples.'),
    head_sha: nullable(
      Type.String(),
      'The head the run read; the one the POST read while it starts; null for a replay or the examples.',
    ),
    rows: nullable(
      Type.Array(RecordedRowSchema),
      'While running, the rows finished so far (null until the first); then the reply’s. A repeat’s first run; null for a replay or the examples.',
    ),
    overall: nullable(OverallSchema),
    detail: nullable(Type.String(), 'Why the try-out failed.'),
    repeat: Type.Optional(TryOutRepeatSchema),
    replay: Type.Optional(TryOutReplaySchema),
    /** The first run's, once the classifier said; a replay's lines each say their own. */
    redaction: Type.Optional(RedactionSchema),
    examples: Type.Optional(TryOutExamplesSchema),
    score: Type.Optional(
      nullable(ReliabilityScoreSchema, 'With examples: null until the try-out is done, then each rule’s score.'),
    ),
  },
  { description: 'A try-out, kept for an hour after it finishes.' },
)

/** `POST /api/review-classifier/open-pr`, for the document: the body itself is read by `parseOpenPrBody`. */
export const OpenPrRequestSchema = Type.Object(
  {
    repo: Type.String({ description: 'owner/name' }),
    classifications: Type.Array(ClassificationSchema, {
      minItems: 1,
      maxItems: MAX_CLASSIFICATIONS,
      description:
        'Merged into the rules file by name: a name already there replaces that entry, a new one goes at the end.',
    }),
    labels: Type.Optional(
      Type.Array(
        Type.Object({
          pr: Type.Integer({ minimum: 1 }),
          expect: Type.Record(Type.String(), VerdictSchema, { minProperties: 1, maxProperties: 10 }),
        }),
        {
          maxItems: 50,
          description:
            'Labels for the examples file, written in the same commit as the rules: merged by PR number (a PR already there gets these names set, a new PR goes at the end), checked as the file is. With rules left unchanged, the commit writes the examples file alone.',
        },
      ),
    ),
  },
  { description: 'The classifications to add to the repo’s rules file, and optionally labels for its examples file.' },
)

export const OpenPrAnswerSchema = Type.Object({
  branch: Type.String({ description: 'review-classifier/<login>-<8 hex digits>' }),
  path: Type.String({ description: 'The rules file written.' }),
  compare_url: Type.String({ description: "The forge's compare page for the branch, to open the PR from." }),
})

/** What the try-out page keeps in the browser's localStorage per repo (ui/bench-store.ts), checked when read back. */
export const DraftEntrySchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  threshold: Type.String(),
  polarity: Type.String(),
  /** The paths as typed, one pattern a line; absent in a draft kept before paths were. */
  paths: Type.Optional(Type.String()),
  mode: Type.Optional(Type.String()),
})

export const StoredAttemptSchema = Type.Object({
  number: Type.Integer({ minimum: 1 }),
  id: Type.String(),
  mode: literals(['pull', 'repeat', 'replay', 'examples'] as const),
  repo: Type.String(),
  pr: nullable(Type.Integer()),
  count: Type.Integer({ minimum: 1 }),
  sent: Type.Array(ClassificationSchema),
  view: nullable(TryOutViewSchema),
  lost: nullable(Type.String()),
})

/** A label the page set on a replay's cell: the repo, PR and rule (by name), and the verdict it should give. */
export const StoredLabelSchema = Type.Object({
  repo: Type.String(),
  pr: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  verdict: VerdictSchema,
})

export const StoredBenchSchema = Type.Object({
  pr: Type.String(),
  draft: Type.Array(DraftEntrySchema),
  baseline: Type.Array(DraftEntrySchema),
  attempts: Type.Array(StoredAttemptSchema),
  /** Absent in an entry kept before labels were: it loads with none. */
  labels: Type.Optional(Type.Array(StoredLabelSchema)),
})

/** One entry of the try-out editor as typed. */
export type DraftEntry = Type.Static<typeof DraftEntrySchema>
export type StoredBench = Type.Static<typeof StoredBenchSchema>
export type StoredLabel = Type.Static<typeof StoredLabelSchema>
