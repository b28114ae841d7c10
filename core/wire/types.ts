/**
 * The domain vocabulary shared by core, ports, adapters and entrypoints. The
 * shapes that cross a boundary are `Static<>` of their schema in schemas.ts,
 * so each is written once.
 */
import type { Static } from '@sinclair/typebox'
import type {
  AcpPricesSchema,
  AcpProviderSchema,
  BudgetSchema,
  ClassificationSchema,
  ClassificationScoreSchema,
  CommitMessageSchema,
  DisagreementSchema,
  EffortSchema,
  ExampleSchema,
  ExamplesLineSchema,
  ModeSchema,
  OpenPrAnswerSchema,
  OverallSchema,
  PolaritySchema,
  RecordedRowSchema,
  RedactionSchema,
  ReliabilityScoreSchema,
  RepeatedClassificationSchema,
  ReplayLineSchema,
  RepoRuntimeSchema,
  RowErrorSchema,
  RowSchema,
  RunCancelSchema,
  RunProgressSchema,
  RunReplySchema,
  RunRequestSchema,
  RuntimeSchema,
  SettingsSchema,
  SpendViewSchema,
  ThresholdPointSchema,
  TryOutExamplesSchema,
  TryOutViewSchema,
  UiConfigSchema,
  UsageSchema,
  VerdictSchema,
} from './schemas.ts'

export type Polarity = Static<typeof PolaritySchema>

/** Whether a rule's counted failure blocks (requests changes) or only advises. */
export type Mode = Static<typeof ModeSchema>

/** One rule of a repo's rules file: the file's four keys and its optional `paths` and `mode`. */
export type Classification = Static<typeof ClassificationSchema>

export type Verdict = Static<typeof VerdictSchema>

/** What the model answered for one classification, after parsing. */
export type Answer = {
  verdict: Verdict
  /** Whole number 0–100. */
  certainty: number
  /** Already capped at 500 characters. */
  reason: string
}

export type RowError = Static<typeof RowErrorSchema>
export type RowErrorKind = RowError['kind']

export type Usage = Static<typeof UsageSchema>

/** One classification's line in the review table and the run store: never a token count. */
export type RecordedRow = Static<typeof RecordedRowSchema>

/** One classification's line in a run reply: a recorded row and the runtime's `usage`, when it reported one. */
export type Row = Static<typeof RowSchema>

export type Overall = Static<typeof OverallSchema>

export type Runtime = Static<typeof RuntimeSchema>

export type RepoRuntime = Static<typeof RepoRuntimeSchema>

export type Effort = Static<typeof EffortSchema>

export type AcpPrices = Static<typeof AcpPricesSchema>

export type AcpProvider = Static<typeof AcpProviderSchema>

/** The swarm-wide settings document (KV bucket `review-classifier-settings`, key `all`). */
export type Settings = Static<typeof SettingsSchema>

/** `budget` in the settings: the daily spend limit. */
export type Budget = Static<typeof BudgetSchema>

/** The spend route's body. */
export type SpendView = Static<typeof SpendViewSchema>

/** One commit as the model sees it: position only, never the sha. */
export type CommitMessage = Static<typeof CommitMessageSchema>

/** A run request as it travels: the runtime fields may be absent (a controller older than them). */
export type RunRequestOnTheWire = Static<typeof RunRequestSchema>

/** The settings a run request carries to the classifier. */
export type RunRequestSettings = Pick<Settings, 'runtime' | 'model' | 'effort' | 'acp' | 'max_output_tokens'>

/** A run request once decoded: the runtime fields filled in with their defaults. */
export type RunRequest = Omit<RunRequestOnTheWire, keyof RunRequestSettings> & RunRequestSettings

export type RunReply = Static<typeof RunReplySchema>

/** The controller's word that it stopped waiting for a run. */
export type RunCancel = Static<typeof RunCancelSchema>

/** What a run's redaction took out (counts and places, never a value), as the reply carries it. */
export type RedactionSummary = Static<typeof RedactionSchema>

/** What the classifier says of a run while it works on it. */
export type RunProgress = Static<typeof RunProgressSchema>

/** What `GET /api/review-classifier/try-out/{id}` answers. */
export type TryOutView = Static<typeof TryOutViewSchema>
export type RepeatedClassification = Static<typeof RepeatedClassificationSchema>
export type ReplayLine = Static<typeof ReplayLineSchema>
export type ReplayLineStatus = ReplayLine['status']

export type OpenPrAnswer = Static<typeof OpenPrAnswerSchema>

/** The pages' own settings: where the forge's web pages are. */
export type UiConfig = Static<typeof UiConfigSchema>

/** One entry of a repo's examples file: a PR and the verdict each named classification should give on it. */
export type Example = Static<typeof ExampleSchema>
export type TryOutExamples = Static<typeof TryOutExamplesSchema>
export type ExamplesLine = Static<typeof ExamplesLineSchema>

/** A classification's answers on the labelled PRs against their labels (docs/behaviour.md, "Labelled examples and reliability"). */
export type ClassificationScore = Static<typeof ClassificationScoreSchema>
export type ThresholdPoint = Static<typeof ThresholdPointSchema>
export type Disagreement = Static<typeof DisagreementSchema>
export type ReliabilityScore = Static<typeof ReliabilityScoreSchema>

export type RepoRef = { owner: string; name: string }

/** The forge's review events; any other value silently makes a pending draft (docs/forgejo.md §3.7). */
export type ReviewEvent = 'APPROVED' | 'REQUEST_CHANGES' | 'COMMENT'

/** The commit status states a review run sets; Forgejo's fifth, `warning`, is never sent (docs/forgejo.md §3.17). */
export type CommitStatusState = 'pending' | 'success' | 'failure' | 'error'

/** The types `claude_code.token.usage` uses, so the cache hit rate reads the same on every runtime. */
export type TokenType = 'input' | 'output' | 'cacheRead' | 'cacheCreation'
