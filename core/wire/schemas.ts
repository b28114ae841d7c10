/**
 * Every body that crosses a process or HTTP boundary, as one TypeBox schema
 * each: the run request and reply (docs/decisions.md, "Wire formats"), the
 * rows, the run record, the settings, the try-out, pulls, rules and open-a-PR
 * bodies. The types in types.ts are `Static<>` of these, the decoders check
 * against them, the controller's routes hand the same schemas to the OpenAPI
 * document, and the pages check the answers they read against them, so a
 * field can't mean one thing in one place and another elsewhere.
 *
 * Objects accept properties they don't list: a field a newer build added is
 * ignored, not fatal (docs/decisions.md, "Wire formats"). `Type.Integer` is
 * TypeBox's own, which unlike Elysia's `t.Integer` takes no numeric strings.
 *
 * The rules and rows are in row-schemas.ts, and the bodies the operator's
 * pages read in page-schemas.ts, re-exported here: the pages import those
 * two themselves, since this module's token counts and prices are nothing
 * they may show.
 */
import { Type } from '@sinclair/typebox'
import {
  DEFAULT_OUTPUT_TOKENS,
  MAX_CLASSIFICATIONS,
  MAX_CONCURRENT_REVIEWS,
  MAX_OUTPUT_TOKENS,
  MIN_CONCURRENT_REVIEWS,
  MIN_OUTPUT_TOKENS,
  RUN_ID_MAX_CHARS,
} from './limits.ts'
import { RedactionSchema, RUN_TRIGGERS } from './page-schemas.ts'
import { ClassificationSchema, literals, nullable, OverallSchema, RecordedRowSchema } from './row-schemas.ts'

export * from './page-schemas.ts'
export * from './row-schemas.ts'
export * from './score-schemas.ts'

export const RUNTIMES = ['api-key', 'acp', 'subscription'] as const
export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const

export const RuntimeSchema = literals(RUNTIMES)
/** What `repo_runtimes` may send a repo to: a runtime, or `none` (no model at all). */
export const RepoRuntimeSchema = literals([...RUNTIMES, 'none'])
export const EffortSchema = literals(EFFORTS)

/** Token counts a runtime reported; they feed the classifier's metrics and the benchmarks only. */
export const UsageSchema = Type.Object({
  input: Type.Integer({ minimum: 0 }),
  output: Type.Integer({ minimum: 0 }),
  cache_read: Type.Integer({ minimum: 0 }),
  cache_write: Type.Integer({ minimum: 0 }),
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

/** The daily spend limit (core/settings/spend.ts): the most USD the classifications of one UTC day may cost. */
export const BudgetSchema = Type.Object({
  daily_usd: Type.Number({ exclusiveMinimum: 0, description: 'USD per UTC day; runs stop starting once reached.' }),
})

/** `max_output_tokens`: what every model request may put out, thinking included. */
export const MaxOutputTokensSchema = Type.Integer({
  minimum: MIN_OUTPUT_TOKENS,
  maximum: MAX_OUTPUT_TOKENS,
  description: `The most output tokens, thinking included, any one model request may ask for; default ${DEFAULT_OUTPUT_TOKENS}.`,
})

/** The swarm-wide settings document (KV bucket `review-classifier-settings`, key `all`). */
export const SettingsSchema = Type.Object(
  {
    model: Type.String({ description: "The API key runtime's model, as claude's --model takes it." }),
    effort: nullable(EffortSchema, "null runs at the runtime's own default."),
    max_concurrent_reviews: Type.Integer({
      minimum: MIN_CONCURRENT_REVIEWS,
      maximum: MAX_CONCURRENT_REVIEWS,
      description: 'Requested reviews run at once.',
    }),
    runtime: RuntimeSchema,
    acp: nullable(AcpProviderSchema, "The ACP runtime's provider; kept while the runtime is api-key."),
    repo_runtimes: Type.Record(Type.String(), RepoRuntimeSchema, {
      description:
        'From owner/name, owner/* or */* to the runtime its PRs run on, or none; the most specific pattern wins, a repo with none matching runs on runtime.',
    }),
    budget: nullable(BudgetSchema, 'null: no spend limit.'),
    rules_change_report: Type.Boolean({
      description: 'Whether a review of a PR that changes the rules or the examples gets the rules-change report.',
    }),
    waivers_by_author: Type.Boolean({
      description: "Whether a PR's own author may waive a failing rule on it (a write collaborator always may).",
    }),
    max_output_tokens: MaxOutputTokensSchema,
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
  id: Type.String({
    minLength: 1,
    maxLength: RUN_ID_MAX_CHARS,
    description: "A try-out's is the id its POST answered with.",
  }),
  trigger: literals(RUN_TRIGGERS),
  repo: Type.String({ pattern: REPO_PATTERN }),
  pr: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  commits: Type.Array(CommitMessageSchema, { description: 'Oldest first, messages only: no sha.' }),
  diff: Type.String({ description: 'The unified diff as the forge returns it; the classifier strips hashes.' }),
  classifications: Type.Array(ClassificationSchema, { minItems: 1, maxItems: MAX_CLASSIFICATIONS }),
  runtime: Type.Optional(RuntimeSchema),
  model: Type.Optional(Type.String()),
  effort: Type.Optional(nullable(EffortSchema)),
  acp: Type.Optional(nullable(AcpProviderSchema)),
  max_output_tokens: Type.Optional(MaxOutputTokensSchema),
})

/**
 * Controller → every classifier, on `<SWARM>.review-classifier.cancel`: the
 * controller stopped waiting for the run with this id (its deadline, a
 * silent classifier, the drain, a try-out dropped), so whichever classifier
 * holds it ends its model processes.
 */
export const RunCancelSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: RUN_ID_MAX_CHARS, description: 'The run request id to stop.' }),
})

/** Classifier → controller: the run's rows and overall verdict, or why it failed as a whole. */
export const RunReplySchema = Type.Object({
  id: Type.String({ description: "The request's id, echoed." }),
  ok: Type.Boolean({ description: 'false when the run failed as a whole; error says why.' }),
  error: Type.Optional(Type.String()),
  rows: Type.Array(RowSchema, { description: "One per classification sent, in the request's order." }),
  overall: OverallSchema,
  redaction: Type.Optional(RedactionSchema),
  cost_usd: Type.Optional(
    Type.Number({
      minimum: 0,
      description:
        "What the run's classifications cost as the budget counts it; absent from a classifier older than the budget.",
    }),
  ),
  cost_recorded_usd: Type.Optional(
    Type.Number({
      minimum: 0,
      description:
        'The part of cost_usd the classifier wrote to the ledger itself, session by session; the controller adds only the rest. Absent from an older classifier, which wrote none.',
    }),
  ),
})

/** `GET /api/review-classifier/spend`: today's spend (UTC) against the budget, and the days kept, newest first. */
export const SpendViewSchema = Type.Object({
  day: Type.String({ description: 'Today, UTC, as YYYY-MM-DD.' }),
  spent_usd: Type.Number({ minimum: 0 }),
  estimated_usd: Type.Number({
    minimum: 0,
    description:
      'The part of spent_usd that is estimated: sessions with no cost figure (stopped at their deadline, failed), at their input tokens at the input price.',
  }),
  reserved_usd: Type.Number({
    minimum: 0,
    description:
      'What the runs under way reserved and have not spent yet; a new run starts only while spent + reserved is under the budget.',
  }),
  budget_usd: Type.Union([Type.Number(), Type.Null()], { description: 'budget.daily_usd; null: no limit.' }),
  by_repo: Type.Record(Type.String(), Type.Number(), { description: "Today's spend by owner/name." }),
  days: Type.Array(Type.Object({ day: Type.String(), spent_usd: Type.Number({ minimum: 0 }) }), {
    description: 'The days the ledger keeps (the last 31), newest first.',
  }),
})

/**
 * Classifier → controller while a run is in hand, on a subject of the run's
 * own (`<SWARM>.review-classifier.progress.<id>`), never on the reply
 * subject: `taken` once the classifier has the run, naming the interval it
 * promises heartbeats at; `heartbeat` at that interval until it replies;
 * `row` as each classification ends. A controller that hears nothing keeps
 * waiting for the reply as before, so an older classifier still works.
 */
/** How often a classifier says it still works on a run it took: the `heartbeat_ms` its `taken` names. */
export const HEARTBEAT_INTERVAL_MS = 2_000

/** How many heartbeat intervals of silence end a run the classifier took: the controller's wait then stops. */
export const MISSED_HEARTBEATS = 4

export const RunProgressSchema = Type.Union([
  Type.Object({ id: Type.String(), kind: Type.Literal('taken'), heartbeat_ms: Type.Integer({ minimum: 1 }) }),
  Type.Object({ id: Type.String(), kind: Type.Literal('heartbeat') }),
  Type.Object({ id: Type.String(), kind: Type.Literal('row'), row: RowSchema }),
])
