/**
 * The bodies of labelled examples and their score (docs/behaviour.md,
 * "Labelled examples and reliability"): an examples file's entries, and what
 * a try-out against them adds up to. The try-out page bundles this module.
 */
import * as Type from '@sinclair/typebox'
import { REPEAT_MAX } from './limits.ts'
import { literals, nullable, Percent, PolaritySchema, RecordedRowSchema, VerdictSchema } from './row-schemas.ts'

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

/** `GET /api/review-classifier/examples?repo=owner/name`: the repo's labelled PRs, in the file's order. */
export const RepoExamplesSchema = Type.Object(
  {
    path: Type.String({ description: 'The examples file read.' }),
    branch: Type.String({ description: 'The default branch.' }),
    commit: Type.String({ description: 'The commit the file was read at: the default branch head.' }),
    examples: Type.Array(ExampleSchema, { description: "In the file's order." }),
  },
  { description: "A repo's labelled examples as its default branch holds them." },
)

export const EXAMPLES_LINE_STATUSES = ['waiting', 'running', 'done', 'failed'] as const

/** One labelled PR of a try-out against the examples. */
export const ExamplesLineSchema = Type.Object({
  pr: Type.Integer({ minimum: 1 }),
  title: Type.String({ description: "The PR's title once it was read; empty until then." }),
  url: Type.String({ description: "The PR's page on the forge." }),
  status: literals(EXAMPLES_LINE_STATUSES, 'waiting: not started yet; failed: one of its runs failed.'),
  head_sha: nullable(Type.String(), 'The head its runs read; null until it was read.'),
  expect: Type.Record(Type.String(), VerdictSchema, {
    description: 'Its labels for the classifications posted; labels naming none of them are in score.unknown_labels.',
  }),
  runs: Type.Array(nullable(Type.Array(RecordedRowSchema)), {
    description:
      'One entry per run asked (repeat of them), in the order asked: its rows in the order posted, or null until it finished or when it failed.',
  }),
  detail: nullable(Type.String(), 'Why one of its runs failed (the PR couldn’t be read, no classifier answered, …).'),
})

export const TryOutExamplesSchema = Type.Object(
  {
    repeat: Type.Integer({ minimum: 1, maximum: REPEAT_MAX, description: 'Runs asked per labelled PR.' }),
    pulls: Type.Array(ExamplesLineSchema, {
      description: "The labelled PRs with a label for a classification posted, in the file's order.",
    }),
  },
  { description: 'Present when the POST had examples: true.' },
)
