/**
 * Every body that crosses a process or HTTP boundary, as one TypeBox schema
 * each: the run request and reply (docs/decisions.md, "Wire formats"), the
 * rows, the run record, the settings, the try-out and open-a-PR bodies. The
 * types in types.ts are `Static<>` of these, the decoders check against them,
 * and the controller's routes hand the same schemas to the OpenAPI document,
 * so a field can't mean one thing in one place and another elsewhere.
 *
 * Objects accept properties they don't list: a field a newer build added is
 * ignored, not fatal (docs/decisions.md, "Wire formats"). `Type.Integer` is
 * TypeBox's own, which unlike Elysia's `t.Integer` takes no numeric strings.
 */
import { type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox'
import { REPEAT_MAX, REPLAY_MAX } from './try-out-runs.ts'

/** One literal schema per value of a tuple, as a tuple, so each keeps its own type. */
type LiteralSchemas<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> }

/** Literal unions from one list, so a schema and the list it came from can't drift. */
function literals<const T extends readonly [string, ...string[]]>(
  values: T,
  description?: string,
): TUnion<LiteralSchemas<T>> {
  const schemas = values.map((value) => Type.Literal(value))
  // `map` loses the tuple's positions; the schemas are exactly one literal per value, in order.
  return Type.Union(schemas, description === undefined ? {} : { description }) as unknown as TUnion<LiteralSchemas<T>>
}

function nullable<T extends TSchema>(schema: T, description?: string) {
  return Type.Union([schema, Type.Null()], description === undefined ? {} : { description })
}

export const POLARITIES = ['positive', 'negative'] as const
export const VERDICTS = ['match', 'no-match', 'not-applicable'] as const
export const ROW_ERROR_KINDS = ['timeout', 'runtime', 'malformed-answer'] as const
export const OVERALLS = ['approve', 'request-changes', 'no-verdict'] as const
export const RUNTIMES = ['api-key', 'acp'] as const
export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const
export const RUN_TRIGGERS = ['review', 'try-out'] as const
export const REVIEW_OUTCOMES = ['approved', 'changes-requested', 'no-verdict', 'queue-full', 'post-failed'] as const
export const TRY_OUT_OUTCOMES = ['done', 'failed'] as const
export const TRY_OUT_STATUSES = ['running', ...TRY_OUT_OUTCOMES] as const
export const REPLAY_LINE_STATUSES = ['waiting', ...TRY_OUT_STATUSES] as const

export const PolaritySchema = literals(
  POLARITIES,
  'positive: a match is the wanted outcome; negative: a match is a violation.',
)
export const VerdictSchema = literals(VERDICTS)
export const OverallSchema = literals(OVERALLS)
export const RuntimeSchema = literals(RUNTIMES)
export const EffortSchema = literals(EFFORTS)

/** A whole number 0–100: a threshold, a certainty. */
const Percent = (description?: string) =>
  Type.Integer({ minimum: 0, maximum: 100, ...(description === undefined ? {} : { description }) })

/** One rule, exactly the rules file's four keys (docs/behaviour.md, "Repo configuration"). */
export const ClassificationSchema = Type.Object({
  name: Type.String({
    minLength: 1,
    description: 'Short and unique in the repo, shown in the result table: at most 64 characters of one visible line.',
  }),
  description: Type.String({
    minLength: 1,
    description: 'The yes/no question the model answers about the PR: at most 2,000 characters.',
  }),
  threshold: Percent('The certainty a verdict needs to count.'),
  polarity: PolaritySchema,
})

export const RowErrorSchema = Type.Object({
  kind: literals(ROW_ERROR_KINDS),
  detail: Type.String({ description: 'Short, one line, never key material.' }),
})

/** Token counts a runtime reported; they feed the classifier's metrics and the benchmarks only. */
export const UsageSchema = Type.Object({
  input: Type.Integer({ minimum: 0 }),
  output: Type.Integer({ minimum: 0 }),
  cache_read: Type.Integer({ minimum: 0 }),
  cache_write: Type.Integer({ minimum: 0 }),
})

/** One classification's line as a run keeps and shows it: never a token count. */
export const RecordedRowSchema = Type.Object({
  name: Type.String(),
  polarity: PolaritySchema,
  threshold: Percent(),
  verdict: nullable(VerdictSchema, 'null when unanswered.'),
  certainty: nullable(Percent()),
  reason: nullable(Type.String({ description: 'At most 500 characters.' })),
  counted: Type.Boolean({ description: 'Applicable and at or over the threshold.' }),
  fails: Type.Boolean({ description: 'Counted, and on the wrong side of its polarity.' }),
  error: nullable(RowErrorSchema, 'Why the row has no answer; null when answered.'),
})

/** A row in a run reply: the recorded row and, when the runtime reported it, its `usage`. */
export const RowSchema = Type.Composite([RecordedRowSchema, Type.Object({ usage: Type.Optional(UsageSchema) })])

export const AcpPricesSchema = Type.Object(
  {
    input: Type.Number({ minimum: 0 }),
    output: Type.Number({ minimum: 0 }),
    cache_read: Type.Optional(Type.Number({ minimum: 0 })),
    cache_write: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { description: 'USD per million tokens; cache prices default to input.' },
)

export const AcpProviderSchema = Type.Object({
  base_url: Type.String({ description: "The provider's OpenAI-compatible API root, https:// only." }),
  model: Type.String({ description: 'The model as the provider names it, no whitespace.' }),
  prices: AcpPricesSchema,
})

/** The swarm-wide settings document (KV bucket `review-classifier-settings`, key `all`). */
export const SettingsSchema = Type.Object(
  {
    model: Type.String({ description: "The API key runtime's model, as claude's --model takes it." }),
    effort: nullable(EffortSchema, "null runs at the runtime's own default."),
    max_concurrent_reviews: Type.Integer({ minimum: 1, maximum: 8, description: 'Requested reviews run at once.' }),
    runtime: RuntimeSchema,
    acp: nullable(AcpProviderSchema, "The ACP runtime's provider; kept while the runtime is api-key."),
  },
  { description: 'The swarm-wide review classifier settings.' },
)

export const CommitMessageSchema = Type.Object({ message: Type.String() })

/** `owner/name`: no slash or whitespace in either part. */
export const REPO_PATTERN = '^[^/\\s]+/[^/\\s]+$'

/**
 * Controller → classifier, on `<SWARM>.review-classifier.try-out`. The
 * runtime fields may be absent: a controller older than the ACP runtime
 * sends none, which means `api-key` on `haiku` at the default effort.
 */
export const RunRequestSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: "A try-out's is the id its POST answered with." }),
  trigger: literals(RUN_TRIGGERS),
  repo: Type.String({ pattern: REPO_PATTERN }),
  pr: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  commits: Type.Array(CommitMessageSchema, { description: 'Oldest first, messages only: no sha.' }),
  diff: Type.String({ description: 'The unified diff as the forge returns it; the classifier strips hashes.' }),
  classifications: Type.Array(ClassificationSchema, { minItems: 1, maxItems: 10 }),
  runtime: Type.Optional(RuntimeSchema),
  model: Type.Optional(Type.String()),
  effort: Type.Optional(nullable(EffortSchema)),
  acp: Type.Optional(nullable(AcpProviderSchema)),
})

/** Classifier → controller: the run's rows and overall verdict, or why it failed as a whole. */
export const RunReplySchema = Type.Object({
  id: Type.String({ description: "The request's id, echoed." }),
  ok: Type.Boolean({ description: 'false when the run failed as a whole; error says why.' }),
  error: Type.Optional(Type.String()),
  rows: Type.Array(RowSchema, { description: "One per classification sent, in the request's order." }),
  overall: OverallSchema,
})

/**
 * Classifier → controller while a run is in hand, on a subject of the run's
 * own (`<SWARM>.review-classifier.progress.<id>`), never on the reply
 * subject: `taken` once the classifier has the run, naming the interval it
 * promises heartbeats at; `heartbeat` at that interval until it replies;
 * `row` as each classification ends. A controller that hears nothing keeps
 * waiting for the reply as before, so an older classifier still works.
 */
export const RunProgressSchema = Type.Union([
  Type.Object({ id: Type.String(), kind: Type.Literal('taken'), heartbeat_ms: Type.Integer({ minimum: 1 }) }),
  Type.Object({ id: Type.String(), kind: Type.Literal('heartbeat') }),
  Type.Object({ id: Type.String(), kind: Type.Literal('row'), row: RowSchema }),
])

/** One finished run, as the run store holds it and the runs route returns it. */
export const RunRecordSchema = Type.Object({
  id: Type.String({ description: "A try-out's is the id its POST answered with." }),
  trigger: literals(RUN_TRIGGERS),
  repo: Type.String({ description: 'owner/name' }),
  pr: Type.Integer(),
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
})

const TryOutClassificationsSchema = Type.Array(ClassificationSchema, {
  minItems: 1,
  maxItems: 10,
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
    pr: nullable(Type.Integer(), 'null for a replay.'),
    head_sha: nullable(
      Type.String(),
      'The head the run read; the one the POST read while it starts; null for a replay.',
    ),
    rows: nullable(
      Type.Array(RecordedRowSchema),
      'While running, the rows finished so far (null until the first); then the reply’s. A repeat’s first run; null for a replay.',
    ),
    overall: nullable(OverallSchema),
    detail: nullable(Type.String(), 'Why the try-out failed.'),
    repeat: Type.Optional(TryOutRepeatSchema),
    replay: Type.Optional(TryOutReplaySchema),
  },
  { description: 'A try-out, kept for an hour after it finishes.' },
)

/** `POST /api/review-classifier/open-pr`, for the document: the body itself is read by `parseOpenPrBody`. */
export const OpenPrRequestSchema = Type.Object(
  {
    repo: Type.String({ description: 'owner/name' }),
    classifications: Type.Array(ClassificationSchema, {
      minItems: 1,
      maxItems: 10,
      description:
        'Merged into the rules file by name: a name already there replaces that entry, a new one goes at the end.',
    }),
  },
  { description: 'The classifications to add to the repo’s rules file.' },
)

export const OpenPrAnswerSchema = Type.Object({
  branch: Type.String({ description: 'review-classifier/<login>-<8 hex digits>' }),
  path: Type.String({ description: 'The rules file written.' }),
  compare_url: Type.String({ description: "The forge's compare page for the branch, to open the PR from." }),
})

/**
 * One entry of a repo's examples file (docs/behaviour.md, "Labelled examples
 * and reliability"): a PR and the answer each named classification should
 * give on it. `expect` is the file's own mapping, read into an object of own
 * keys: look a name up with `Object.hasOwn`, or go through `Object.entries`.
 */
export const ExampleSchema = Type.Object({
  pr: Type.Integer({ minimum: 1, description: 'The PR, unique in the file.' }),
  expect: Type.Record(Type.String(), VerdictSchema, {
    minProperties: 1,
    maxProperties: 10,
    description: 'Classification name → the verdict it should give on this PR: 1 to 10 labels.',
  }),
  note: Type.Optional(Type.String({ description: 'Why the PR is labelled so: at most 500 characters.' })),
})

const Count = (description?: string) =>
  Type.Integer({ minimum: 0, ...(description === undefined ? {} : { description }) })

/** One threshold of a classification's curve: the same answers judged as if its threshold were this one. */
export const ThresholdPointSchema = Type.Object({
  threshold: Percent(),
  agree: Count(),
  disagree: Count(),
  abstain: Count(),
  false_pass: Count(),
})

/** One counted answer whose verdict isn't the label. */
export const DisagreementSchema = Type.Object({
  pr: Type.Integer({ minimum: 1 }),
  expected: VerdictSchema,
  verdict: VerdictSchema,
  certainty: Percent(),
  kind: nullable(
    literals(['false-pass', 'false-block']),
    'false-pass: the label is the failing verdict and the answer passes; false-block: the answer fails and the label isn’t the failing verdict; null: a pass on a PR labelled not-applicable.',
  ),
})

/** How one classification's answers on the labelled PRs compare with their labels, at its threshold. */
export const ClassificationScoreSchema = Type.Object({
  name: Type.String(),
  polarity: PolaritySchema,
  threshold: Percent('The threshold the card is judged at: the rule’s own, or a what-if one.'),
  labelled: Count('Labelled PRs for this classification.'),
  answers: Count('labelled × repeat: agree + disagree + abstain.'),
  agree: Count('Counted, and the verdict is the label.'),
  disagree: Count('Counted, and the verdict isn’t the label.'),
  abstain: Count('Not counted: no answer, not applicable, or below the threshold.'),
  false_pass: Count('Disagreements that pass the rule on a PR labelled with its failing verdict.'),
  false_block: Count('Disagreements that fail the rule on a PR not labelled with its failing verdict.'),
  flips: Count('Labelled PRs whose answered answers don’t all have one counted outcome (pass, fail, uncounted).'),
  margin: nullable(Percent(), 'The smallest certainty − threshold over the counted answers; null when none counted.'),
  disagreements: Type.Array(DisagreementSchema, {
    description: 'One per disagreeing answer, in PR then answer order.',
  }),
  threshold_curve: Type.Array(ThresholdPointSchema, {
    minItems: 101,
    maxItems: 101,
    description: 'Thresholds 0 to 100, in order.',
  }),
  suggested_threshold: nullable(
    Percent(),
    'The threshold with no false pass that agrees most (then disagrees least, then is nearest the rule’s own); null when none avoids a false pass, or nothing was answered.',
  ),
})

/** What a try-out against the labelled examples adds up to (the try-out GET's `score`). */
export const ReliabilityScoreSchema = Type.Object({
  repeat: Type.Integer({ minimum: 1, maximum: REPEAT_MAX, description: 'Answers asked per labelled PR.' }),
  classifications: Type.Array(ClassificationScoreSchema, { description: 'In the order posted.' }),
  unknown_labels: Type.Array(Type.Object({ pr: Type.Integer({ minimum: 1 }), name: Type.String() }), {
    description: 'Labels naming no classification posted: no such classification, left out of the score.',
  }),
})
