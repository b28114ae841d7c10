import { capLine, capText, plural } from '../base/text.ts'
import type {
  Answer,
  Classification,
  Overall,
  Polarity,
  Row,
  RowError,
  RowErrorKind,
  Usage,
  Verdict,
} from '../wire/types.ts'
import { capReason } from './answer.ts'
import { OUT_OF_SCOPE_REASON } from './scope.ts'

/**
 * Aggregation into the verdict (docs/behaviour.md, "Aggregation into the verdict", "The
 * review"). A run with no clean verdict never approves: any unanswered
 * classification, or a reply that doesn't answer exactly the classifications
 * sent, makes the overall `no-verdict`.
 */

export type ClassificationResult = {
  name: string
  answer: Answer | null
  error: RowError | null
  usage?: Usage
}

export type Aggregate = {
  /** One row per classification sent, in the order sent. */
  rows: Row[]
  overall: Overall
  /** Why there is no verdict; null for approve and request changes. */
  reason: string | null
}

/** How an error kind reads in a sentence and in the table. */
export const ERROR_KIND_LABEL = {
  timeout: 'timeout',
  runtime: 'runtime error',
  'malformed-answer': 'malformed answer',
} as const satisfies Record<RowErrorKind, string>

/** The verdict on the wrong side of each polarity. */
export const FAILING_VERDICT = {
  positive: 'no-match',
  negative: 'match',
} as const satisfies Record<Polarity, Verdict>

/** Whether an answer counts toward the verdict: applicable, and at or over the threshold. */
export function isCounted(verdict: Verdict, certainty: number, threshold: number): boolean {
  return verdict !== 'not-applicable' && certainty >= threshold
}

const ROW_DETAIL_MAX_CHARS = 200
const NAMES_LISTED_MAX = 3

/**
 * One classification's row. When both an answer and an error are given the
 * error wins: a row the runtime reported as failed never counts, which errs
 * towards no verdict rather than towards an approval.
 */
export function rowFromAnswer(
  classification: Classification,
  answer: Answer | null,
  error: RowError | null,
  usage?: Usage,
): Row {
  const { name, polarity, threshold } = classification
  const mode = classification.mode ?? 'blocking'
  const base = { mode, in_scope: true, ...(usage === undefined ? {} : { usage }) }
  if (error !== null || answer === null) {
    return {
      name,
      polarity,
      threshold,
      verdict: null,
      certainty: null,
      reason: null,
      counted: false,
      fails: false,
      error: error ?? { kind: 'runtime', detail: 'no answer and no error reported' },
      ...base,
      blocks: false,
    }
  }
  const counted = isCounted(answer.verdict, answer.certainty, threshold)
  const fails = counted && answer.verdict === FAILING_VERDICT[polarity]
  return {
    name,
    polarity,
    threshold,
    verdict: answer.verdict,
    certainty: answer.certainty,
    reason: answer.reason,
    counted,
    fails,
    error: null,
    ...base,
    blocks: fails && mode === 'blocking',
  }
}

/**
 * The row of a rule no changed file is in scope of: not asked, so
 * not-applicable with no certainty, never counted (docs/behaviour.md,
 * "Scoping a rule to its files").
 */
export function outOfScopeRow(classification: Classification): Row {
  const { name, polarity, threshold } = classification
  return {
    name,
    polarity,
    threshold,
    verdict: 'not-applicable',
    certainty: null,
    reason: OUT_OF_SCOPE_REASON,
    counted: false,
    fails: false,
    error: null,
    mode: classification.mode ?? 'blocking',
    in_scope: false,
    blocks: false,
  }
}

/** Whether a row requests changes: `blocks`, or `fails` in a record older than modes. */
export function rowBlocks(row: Pick<Row, 'fails' | 'blocks'>): boolean {
  return row.blocks ?? row.fails
}

/**
 * Collects the results of a run into its rows and overall verdict. Rows come
 * out in the order `sent` lists them; a sent classification with no result
 * gets an unanswered row, and a result for a name that wasn't sent is left
 * out of the rows (it is only counted in the reason). A classification named
 * in `outOfScope` gets its out-of-scope row whatever its result says, and
 * needs none.
 */
export function aggregateVerdict(
  sent: readonly Classification[],
  results: readonly ClassificationResult[],
  outOfScope: ReadonlySet<string> = new Set(),
): Aggregate {
  const byName = new Map<string, ClassificationResult>()
  const duplicates = new Set<string>()
  for (const result of results) {
    if (byName.has(result.name)) duplicates.add(result.name)
    else byName.set(result.name, result)
  }
  const sentNames = new Set(sent.map((classification) => classification.name))
  const missing = sent.map((c) => c.name).filter((name) => !byName.has(name) && !outOfScope.has(name))
  const unexpected = [...byName.keys()].filter((name) => !sentNames.has(name))

  const rows = sent.map((classification) => {
    if (outOfScope.has(classification.name)) return outOfScopeRow(classification)
    const result = byName.get(classification.name)
    if (result === undefined) {
      return rowFromAnswer(classification, null, { kind: 'runtime', detail: "missing from the classifier's reply" })
    }
    return rowFromAnswer(classification, result.answer, result.error, result.usage)
  })

  const problems: string[] = []
  if (sent.length === 0) {
    problems.push('no classification was sent')
  } else if (sentNames.size !== sent.length) {
    problems.push('the classifications sent have duplicate names')
  }
  const expected = sent.filter((classification) => !outOfScope.has(classification.name)).length
  const answered = results.filter((result) => !outOfScope.has(result.name)).length
  if (answered !== expected || missing.length > 0 || unexpected.length > 0 || duplicates.size > 0) {
    problems.push(describeMismatch(expected, answered, missing, unexpected, [...duplicates]))
  }
  const unanswered = rows.filter((row) => row.error !== null && !missing.includes(row.name))
  if (unanswered.length > 0) {
    problems.push(describeUnanswered(unanswered, sent.length))
  }

  if (problems.length > 0) {
    return { rows, overall: 'no-verdict', reason: `${capitalise(problems.join('; '))}.` }
  }
  const overall = rows.some(rowBlocks) ? 'request-changes' : 'approve'
  return { rows, overall, reason: null }
}

/**
 * Checks a classifier's reply rows against what the controller sent. The
 * verdict is recomputed from the sent classifications' polarity and
 * threshold and from each row's answer alone: the reply's own `counted`,
 * `fails` and `overall` are never trusted, so a classifier bug, a split
 * deploy or a tampered reply can't turn into an approval. A row whose answer
 * is incomplete or out of range reads as a malformed answer. `usage` is
 * dropped: the controller keeps no token counts (docs/decisions.md, run reply).
 */
export function checkReplyRows(
  sent: readonly Classification[],
  rows: readonly Row[],
  outOfScope: ReadonlySet<string> = new Set(),
): Aggregate {
  return aggregateVerdict(sent, rows.map(resultFromReplyRow), outOfScope)
}

/**
 * A row the classifier sent as progress before its reply (docs/decisions.md,
 * "Run progress"), re-checked as a reply row is: recomputed from the sent
 * classification's polarity and threshold and the row's answer alone, an
 * incomplete answer read as malformed, no `usage`. `null` for a row whose
 * name wasn't sent. It is for display only: the reply's rows replace it.
 */
export function checkProgressRow(
  sent: readonly Classification[],
  row: Row,
  outOfScope: ReadonlySet<string> = new Set(),
): Row | null {
  const classification = sent.find((candidate) => candidate.name === row.name)
  if (classification === undefined) return null
  if (outOfScope.has(classification.name)) return outOfScopeRow(classification)
  const { answer, error } = resultFromReplyRow(row)
  return rowFromAnswer(classification, answer, error)
}

function resultFromReplyRow(row: Row): ClassificationResult {
  if (row.error !== null) {
    return {
      name: row.name,
      answer: null,
      error: { kind: row.error.kind, detail: capLine(row.error.detail, ROW_DETAIL_MAX_CHARS) },
    }
  }
  const { verdict, certainty, reason } = row
  if (
    verdict === null ||
    certainty === null ||
    reason === null ||
    !Number.isInteger(certainty) ||
    certainty < 0 ||
    certainty > 100
  ) {
    return {
      name: row.name,
      answer: null,
      error: { kind: 'malformed-answer', detail: 'the reply row has no complete answer' },
    }
  }
  return { name: row.name, answer: { verdict, certainty, reason: capReason(reason) }, error: null }
}

function describeMismatch(
  sentCount: number,
  answeredCount: number,
  missing: readonly string[],
  unexpected: readonly string[],
  duplicates: readonly string[],
): string {
  const details = [
    missing.length > 0 ? `missing: ${listNames(missing)}` : null,
    unexpected.length > 0 ? `unexpected: ${listNames(unexpected)}` : null,
    duplicates.length > 0 ? `answered twice: ${listNames(duplicates)}` : null,
  ].filter((detail) => detail !== null)
  const counts = `the classifier answered ${plural(answeredCount, 'classification')} for ${sentCount} sent`
  return details.length > 0 ? `${counts} (${details.join('; ')})` : counts
}

function describeUnanswered(unanswered: readonly Row[], sentCount: number): string {
  const counts = new Map<RowErrorKind, number>()
  for (const row of unanswered) {
    if (row.error !== null) counts.set(row.error.kind, (counts.get(row.error.kind) ?? 0) + 1)
  }
  // A fixed order, so the same run always reads the same.
  const kinds = Object.keys(ERROR_KIND_LABEL).filter(isErrorKind)
  const byKind = kinds
    .filter((kind) => counts.has(kind))
    .map((kind) => `${ERROR_KIND_LABEL[kind]}: ${counts.get(kind)}`)
    .join(', ')
  return `${unanswered.length} of ${sentCount} classifications got no answer (${byKind})`
}

function isErrorKind(key: string): key is RowErrorKind {
  return Object.hasOwn(ERROR_KIND_LABEL, key)
}

/** Names come from the rules file and the reply: quote a few, count the rest. */
function listNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_LISTED_MAX).map((name) => JSON.stringify(capText(name, 40)))
  const rest = names.length - shown.length
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : shown.join(', ')
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
