/**
 * The memory of recently reviewed PRs behind `fixed` and `flaky` (rule
 * health, rule-health.ts): per PR its last head and, per rule, the last
 * answer on that head and the head of a failure not yet fixed. One document
 * per repo, the {@link PRS_REMEMBERED} most recently reviewed PRs, so it
 * stays small whatever the repo's history.
 */
import { isRecord } from '../wire/decode.ts'
import { PRS_REMEMBERED, type RowOutcome, type RuleRunCount } from './rule-health.ts'

type Answered = Exclude<RowOutcome, 'unanswered'>

export type PrRuleState = {
  name: string
  /** The last answer on the PR's current head; null when none yet. */
  last: Answered | null
  /** The head the rule last failed on, until a later head passes; null when nothing is to fix. */
  failed_head: string | null
  /** Whether this PR has already counted as one where the rule's runs on a head disagreed. */
  flaky: boolean
}

export type PrState = { pr: number; head: string; rules: PrRuleState[] }

/** Newest first. */
export type PrMemory = { prs: PrState[] }

const ANSWERED: readonly string[] = ['failed', 'passed', 'uncounted']

function decodeRule(value: unknown): PrRuleState | null {
  if (!isRecord(value) || typeof value.name !== 'string') return null
  return {
    name: value.name,
    last: typeof value.last === 'string' && ANSWERED.includes(value.last) ? (value.last as Answered) : null,
    failed_head: typeof value.failed_head === 'string' ? value.failed_head : null,
    flaky: value.flaky === true,
  }
}

function decodePr(value: unknown): PrState | null {
  if (!isRecord(value) || !Number.isSafeInteger(value.pr) || typeof value.head !== 'string') return null
  const rules = Array.isArray(value.rules) ? value.rules.map(decodeRule) : []
  return { pr: value.pr as number, head: value.head, rules: rules.filter((rule) => rule !== null) }
}

/** The stored memory; what isn't readable reads as none (a fix then goes uncounted, nothing worse). */
export function decodePrMemory(text: string | null): PrMemory {
  if (text === null) return { prs: [] }
  try {
    const parsed: unknown = JSON.parse(text)
    if (!isRecord(parsed) || !Array.isArray(parsed.prs)) return { prs: [] }
    return { prs: parsed.prs.map(decodePr).filter((pr) => pr !== null) }
  } catch {
    return { prs: [] }
  }
}

/** What one run's rules did, before `fixed` and `flaky` are known. */
export type RunOutcomes = readonly Omit<RuleRunCount, 'fixed' | 'flaky'>[]

/**
 * Takes one run on `pr` at `head` into the memory: answers the run's counts
 * with `fixed` and `flaky` set, and the memory to store. A rule is fixed when
 * it passes on a head other than the one it last failed on; flaky once per
 * PR, when an answer on a head differs from the one before on the same head.
 * An unanswered row changes nothing.
 */
export function trackRun(
  memory: PrMemory,
  run: { pr: number; head: string; rules: RunOutcomes },
): { memory: PrMemory; rules: RuleRunCount[] } {
  const previous = memory.prs.find((entry) => entry.pr === run.pr)
  const sameHead = previous?.head === run.head
  const states = new Map<string, PrRuleState>()
  for (const rule of previous?.rules ?? []) states.set(rule.name, { ...rule, last: sameHead ? rule.last : null })
  const rules = run.rules.map((rule): RuleRunCount => {
    const counted = { ...rule, fixed: false, flaky: false }
    if (rule.outcome === 'unanswered' || !rule.asked) return counted
    const state = states.get(rule.name) ?? { name: rule.name, last: null, failed_head: null, flaky: false }
    if (state.last !== null && state.last !== rule.outcome && !state.flaky) {
      state.flaky = true
      counted.flaky = true
    }
    state.last = rule.outcome
    if (rule.outcome === 'failed') state.failed_head = run.head
    else if (rule.outcome === 'passed' && state.failed_head !== null && state.failed_head !== run.head) {
      state.failed_head = null
      counted.fixed = true
    }
    states.set(rule.name, state)
    return counted
  })
  // Only what may still matter: a rule with an answer on this head, a failure to fix, or a flaky mark.
  const kept = [...states.values()].filter((state) => state.last !== null || state.failed_head !== null || state.flaky)
  const entry: PrState = { pr: run.pr, head: run.head, rules: kept }
  const others = memory.prs.filter((other) => other.pr !== run.pr)
  return { memory: { prs: [entry, ...others].slice(0, PRS_REMEMBERED) }, rules }
}
