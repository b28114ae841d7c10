/**
 * The rules and the rows of their verdicts, as every body that carries them
 * shares them: the lists their literals come from, a rule
 * (`ClassificationSchema`) and its row as a run keeps and shows it
 * (`RecordedRowSchema`). Part of the schemas of schemas.ts, in a module of
 * its own so the operator's pages can bundle it: nothing here names a token
 * count or a price.
 *
 * TypeBox's functions come in as a namespace, not its `Type` builder object:
 * the page bundles this module, and the builder would bring every kind of
 * schema TypeBox has (some 43 KB minified) where the functions used here are
 * a few.
 */
import type { TLiteral, TSchema, TUnion } from '@sinclair/typebox'
import * as Type from '@sinclair/typebox'
import {
  ANSWER_REASON_MAX_CHARS,
  DESCRIPTION_MAX_CHARS,
  NAME_MAX_CHARS,
  PATH_PATTERN_MAX_CHARS,
  PATHS_MAX_PATTERNS,
  PATHS_MIN_PATTERNS,
} from './limits.ts'

/** One literal schema per value of a tuple, as a tuple, so each keeps its own type. */
type LiteralSchemas<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> }

/** Literal unions from one list, so a schema and the list it came from can't drift. */
export function literals<const T extends readonly [string, ...string[]]>(
  values: T,
  description?: string,
): TUnion<LiteralSchemas<T>> {
  const schemas = values.map((value) => Type.Literal(value))
  // `map` loses the tuple's positions; the schemas are exactly one literal per value, in order.
  return Type.Union(schemas, description === undefined ? {} : { description }) as unknown as TUnion<LiteralSchemas<T>>
}

export function nullable<T extends TSchema>(schema: T, description?: string) {
  return Type.Union([schema, Type.Null()], description === undefined ? {} : { description })
}

export const POLARITIES = ['positive', 'negative'] as const
export const VERDICTS = ['match', 'no-match', 'not-applicable'] as const
export const ROW_ERROR_KINDS = ['timeout', 'runtime', 'malformed-answer'] as const
export const OVERALLS = ['approve', 'request-changes', 'no-verdict'] as const
export const MODES = ['blocking', 'advisory'] as const

export const PolaritySchema = literals(
  POLARITIES,
  'positive: a match is the wanted outcome; negative: a match is a violation.',
)
export const VerdictSchema = literals(VERDICTS)
export const ModeSchema = literals(
  MODES,
  "blocking (the default): a counted failure requests changes; advisory: it is shown, and doesn't block.",
)
export const OverallSchema = literals(OVERALLS)

/** A whole number 0–100: a threshold, a certainty. */
export const Percent = (description?: string) =>
  Type.Integer({ minimum: 0, maximum: 100, ...(description === undefined ? {} : { description }) })

/** One rule, the rules file's four keys and its two optional ones (docs/behaviour.md, "Repo configuration"). */
export const ClassificationSchema = Type.Object({
  name: Type.String({
    minLength: 1,
    description: `Short and unique in the repo, shown in the result table: at most ${NAME_MAX_CHARS} characters of one visible line.`,
  }),
  description: Type.String({
    minLength: 1,
    description: `The yes/no question the model answers about the PR: at most ${DESCRIPTION_MAX_CHARS.toLocaleString('en-US')} characters.`,
  }),
  threshold: Percent('The certainty a verdict needs to count.'),
  polarity: PolaritySchema,
  paths: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: PATH_PATTERN_MAX_CHARS }), {
      minItems: PATHS_MIN_PATTERNS,
      maxItems: PATHS_MAX_PATTERNS,
      description: `Gitignore-like globs (\`!\` excludes) the rule is about; absent: every file. ${PATHS_MIN_PATTERNS}–${PATHS_MAX_PATTERNS} patterns of at most ${PATH_PATTERN_MAX_CHARS} characters.`,
    }),
  ),
  mode: Type.Optional(ModeSchema),
})

export const RowErrorSchema = Type.Object({
  kind: literals(ROW_ERROR_KINDS),
  detail: Type.String({ description: 'Short, one line, never key material.' }),
})

/** One classification's line as a run keeps and shows it: never a token count. */
export const RecordedRowSchema = Type.Object({
  name: Type.String(),
  polarity: PolaritySchema,
  threshold: Percent(),
  verdict: nullable(VerdictSchema, 'null when unanswered.'),
  certainty: nullable(Percent()),
  reason: nullable(Type.String({ description: `At most ${ANSWER_REASON_MAX_CHARS} characters.` })),
  counted: Type.Boolean({ description: 'Applicable and at or over the threshold.' }),
  fails: Type.Boolean({ description: 'Counted, and on the wrong side of its polarity.' }),
  error: nullable(RowErrorSchema, 'Why the row has no answer; null when answered.'),
  mode: Type.Optional(ModeSchema),
  in_scope: Type.Optional(
    Type.Boolean({
      description: 'false: no changed file matches its paths, and it was not asked. Absent in older records: true.',
    }),
  ),
  blocks: Type.Optional(
    Type.Boolean({ description: 'fails, on a blocking rule: what requests changes. Absent in older records: fails.' }),
  ),
  waived_by: Type.Optional(
    Type.String({ description: 'The forge login whose waiver took this failing row out of the overall.' }),
  ),
})
