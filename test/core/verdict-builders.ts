import type { Answer, Row, RowError } from '../../core/types.ts'

/** Builders for the verdict tests (answer, aggregate, review body). */

export { aClassification } from '../builders.ts'

export function anAnswer(overrides: Partial<Answer> = {}): Answer {
  return { verdict: 'match', certainty: 92, reason: 'Every timestamp is zone-aware.', ...overrides }
}

export function aRowError(overrides: Partial<RowError> = {}): RowError {
  return { kind: 'timeout', detail: 'no answer within 180 s', ...overrides }
}

export function anAnsweredRow(overrides: Partial<Row> = {}): Row {
  return {
    name: 'datetime',
    polarity: 'positive',
    threshold: 80,
    verdict: 'match',
    certainty: 92,
    reason: 'Every timestamp is zone-aware.',
    counted: true,
    fails: false,
    error: null,
    ...overrides,
  }
}

export function anUnansweredRow(overrides: Partial<Row> = {}): Row {
  return {
    name: 'datetime',
    polarity: 'positive',
    threshold: 80,
    verdict: null,
    certainty: null,
    reason: null,
    counted: false,
    fails: false,
    error: aRowError(),
    ...overrides,
  }
}
