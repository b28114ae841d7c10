/**
 * The two sides of bench/diff.ts and the steps each is timed on: "before"
 * is the code as it was (in-process, the diff preparation of
 * test/core/diff/diff-reference.ts with today's prompt wording around it; the CLI
 * as of BEFORE_REV), "after" core/ as it is; the inputs are checked to give
 * the same bytes on both sides before anything is timed.
 */

import * as diff from '../../core/diff/diff.ts'
import * as budget from '../../core/run/budget.ts'
import * as prompt from '../../core/run/prompt.ts'
import type { Classification } from '../../core/wire/types.ts'
import * as reference from '../../test/core/diff/diff-reference.ts'
import { aMixedDiff, someRules } from '../support/synthetic-pr.ts'

/** The CLI as it was before the diff preparation was made fast (the tip of main the work started from). */
export const BEFORE_REV = '0d4ce106f1322b1de4db0cd8dc404306bd29a2ab'
/** A repo's rules: three, as a typical rules file. */
export const RULES: Classification[] = someRules(3)

export type Side = 'before' | 'after'
export type Preparation = {
  stripObjectHashes(diff: string): string
  collapseLockfiles(diff: string): string
  neutraliseFence(text: string): string
  buildSharedContext(input: prompt.SharedContextInput): string
  buildPromptFromContext(context: string, classification: Classification): prompt.Prompt
  streamJsonUserLine(blocks: prompt.PromptBlocks): string
  checkContextBudget(context: string, budgetBytes?: number): budget.BudgetCheck
}
export const SIDES: Record<Side, Preparation> = {
  // The old preparation and count around today's wording, which the reference doesn't repeat.
  before: {
    stripObjectHashes: reference.stripObjectHashes,
    collapseLockfiles: reference.collapseLockfiles,
    neutraliseFence: reference.neutraliseFence,
    buildSharedContext: (input) => prompt.buildSharedContextAround(input, [reference.prepareDiff(input.diff)]),
    buildPromptFromContext: prompt.buildPromptFromContext,
    streamJsonUserLine: prompt.streamJsonUserLine,
    checkContextBudget: (context, budgetBytes) => budget.budgetCheckOf(reference.utf8Length(context), budgetBytes),
  },
  after: { ...diff, ...prompt, ...budget },
}

export type Input = {
  mb: number
  bytes: number
  pr: prompt.SharedContextInput
  stripped: string
  collapsed: string
  context: string
}

export type Step = { name: string; inGoal: boolean; run(side: Preparation, input: Input): number }

/** Each returns a number from its result so nothing is optimised away. */
export const STEPS: readonly Step[] = [
  { name: 'hash stripping', inGoal: true, run: (s, i) => s.stripObjectHashes(i.pr.diff).length },
  { name: 'lockfile collapse', inGoal: true, run: (s, i) => s.collapseLockfiles(i.stripped).length },
  { name: 'fence neutralisation (of the diff)', inGoal: true, run: (s, i) => s.neutraliseFence(i.collapsed).length },
  {
    name: 'shared context (the three above and assembly)',
    inGoal: true,
    run: (s, i) => s.buildSharedContext(i.pr).length,
  },
  { name: 'budget check (of a built context)', inGoal: true, run: (s, i) => s.checkContextBudget(i.context).bytes },
  {
    name: '**whole: shared context + budget check + 3 prompts**',
    inGoal: true,
    run: (s, i) => {
      const context = s.buildSharedContext(i.pr)
      const check = s.checkContextBudget(context)
      let sum = check.bytes
      for (const rule of RULES) sum += s.buildPromptFromContext(context, rule).blocks[1].text.length
      return sum
    },
  },
  {
    name: 'stdin line of one prompt (JSON, not in the goal)',
    inGoal: false,
    run: (s, i) => s.streamJsonUserLine(s.buildPromptFromContext(i.context, RULES[0] as Classification).blocks).length,
  },
]
export const WHOLE = STEPS[5] as Step

export function inputOf(mb: number): Input {
  const text = aMixedDiff(mb * 1e6)
  const pr = { repo: 'acme/ledger', pr: 314, title: 'Store every timestamp with its zone', commits: [], diff: text }
  const stripped = reference.stripObjectHashes(text)
  const collapsed = reference.collapseLockfiles(stripped)
  const context = SIDES.before.buildSharedContext(pr)
  // Both sides must give the same bytes, or the figures compare nothing.
  for (const [name, a, b] of [
    ['stripObjectHashes', stripped, diff.stripObjectHashes(text)],
    ['collapseLockfiles', collapsed, diff.collapseLockfiles(stripped)],
    ['buildSharedContext', context, prompt.buildSharedContext(pr)],
  ] as const) {
    if (a !== b) throw new Error(`${name} differs between before and after on the ${mb} MB diff`)
  }
  context.charCodeAt(0) // flattens the string once, as the budget check's input is in a real run
  return { mb, bytes: Buffer.byteLength(text), pr, stripped, collapsed, context }
}
