/**
 * `GET /api/review-classifier/rules/health` (docs/behaviour.md, "Rule
 * health"): each rule's counts over the last 30 UTC days, per day, and its
 * flags. A module of its own so the Rules page can bundle it, as it does
 * page-schemas.ts; TypeBox's functions come in as a namespace for the same
 * reason.
 */
import * as Type from '@sinclair/typebox'
import { literals, Percent, PolaritySchema } from './row-schemas.ts'

export const RULE_FLAGS = ['noisy', 'silent', 'unsure', 'flaky'] as const
export const RULE_MODES = ['blocking', 'advisory'] as const

const Count = (description: string) => Type.Integer({ minimum: 0, description })

const Counts = {
  asked: Count('Runs that asked the model about the rule (answered or not); an out-of-scope rule is not asked.'),
  failed: Count('Counted and on the wrong side of its polarity.'),
  passed: Count('Counted and on the right side.'),
  uncounted: Count('Below its threshold, not applicable, or out of scope.'),
  unanswered: Count('No answer: a timeout, a runtime error, a malformed answer.'),
  waived: Count('Failures a person waived.'),
  fixed: Count('Failed on one head of a PR, then passed on a later head of the same PR.'),
}

export const RuleHealthDaySchema = Type.Object({
  day: Type.String({ description: 'UTC, YYYY-MM-DD.' }),
  ...Counts,
})

export const RuleHealthSchema = Type.Object({
  name: Type.String(),
  ...Counts,
  flags: Type.Array(literals(RULE_FLAGS), {
    description:
      'noisy: waived on at least 30 % of at least 5 failures; silent: asked on at least 20 PRs, never failed; ' +
      'unsure: at least half of at least 10 answers uncounted; flaky: on at least 3 PRs, runs on the same head disagreed.',
  }),
  asked_prs: Count('Distinct PRs it was asked on, counted up to 20 a day.'),
  flaky_prs: Count('PRs where runs on the same head disagreed about it.'),
  failing_runs: Type.Array(Type.String(), {
    description: 'Ids of recent runs it failed in, newest first (the run store may have dropped the older ones).',
  }),
  by_day: Type.Array(RuleHealthDaySchema, { description: 'The days with counts, oldest first.' }),
  removed: Type.Optional(Type.Literal(true, { description: 'Counted, but no longer in the rules file.' })),
  description: Type.Optional(Type.String({ description: "The rule's question, for a rule in the file." })),
  threshold: Type.Optional(Percent()),
  polarity: Type.Optional(PolaritySchema),
  mode: Type.Optional(literals(RULE_MODES)),
  paths: Type.Optional(Type.Array(Type.String(), { description: 'The paths the rule is asked about; absent: all.' })),
})

export const RulesHealthViewSchema = Type.Object({
  repo: Type.String({ description: 'owner/name' }),
  days: Type.Integer({ minimum: 1, description: 'How many UTC days the counts cover, today included.' }),
  since: Type.String({ description: 'The first day covered, YYYY-MM-DD.' }),
  until: Type.String({ description: 'Today (UTC), the last day covered.' }),
  path: Type.String({ description: 'The rules file read.' }),
  branch: Type.String({ description: 'The default branch.' }),
  rules: Type.Array(RuleHealthSchema, {
    description: "The file's rules in its order, then counted rules no longer in it (removed: true).",
  }),
})
