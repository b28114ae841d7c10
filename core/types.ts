/** The domain vocabulary shared by core, ports, adapters and entrypoints. */

export type Polarity = 'positive' | 'negative'

/** One rule of a repo's rules file, exactly the file's four keys. */
export type Classification = {
  name: string
  description: string
  /** Whole number 0–100: the certainty a verdict needs to count. */
  threshold: number
  polarity: Polarity
}

export type Verdict = 'match' | 'no-match' | 'not-applicable'

/** What the model answered for one classification, after parsing. */
export type Answer = {
  verdict: Verdict
  /** Whole number 0–100. */
  certainty: number
  /** Already capped at 500 characters. */
  reason: string
}

export type RowErrorKind = 'timeout' | 'runtime' | 'malformed-answer'

export type RowError = {
  kind: RowErrorKind
  /** Short, one line, never key material. */
  detail: string
}

export type Usage = {
  input: number
  output: number
  cache_read: number
  cache_write: number
}

/** One classification's line in a run reply and in the review table. */
export type Row = {
  name: string
  polarity: Polarity
  threshold: number
  verdict: Verdict | null
  certainty: number | null
  reason: string | null
  counted: boolean
  fails: boolean
  error: RowError | null
  usage?: Usage
}

export type Overall = 'approve' | 'request-changes' | 'no-verdict'

export type Runtime = 'api-key' | 'acp'

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max'

export type AcpPrices = {
  input: number
  output: number
  cache_read?: number
  cache_write?: number
}

export type AcpProvider = {
  base_url: string
  model: string
  prices: AcpPrices
}

/** The swarm-wide settings document (KV bucket `review-classifier-settings`, key `all`). */
export type Settings = {
  model: string
  effort: Effort | null
  max_concurrent_reviews: number
  runtime: Runtime
  acp: AcpProvider | null
}

/** One commit as the model sees it: position only, never the sha. */
export type CommitMessage = { message: string }

export type RepoRef = { owner: string; name: string }
