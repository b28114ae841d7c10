import { describe, expect, it } from 'bun:test'
import { EXTRA_RULES } from '../../../core/redaction/extra-rules.ts'
import { OWN_RULES } from '../../../core/redaction/own-rules.ts'
import { RULES } from '../../../core/redaction/rules.ts'
import { findSecrets } from '../../../core/redaction/scan.ts'
import { GENERIC_LOOKALIKES, GENERIC_SECRETS, OWN_RULE_SAMPLES, type OwnSample } from './redact-own-samples.ts'

/** The kinds the scan finds in a sample (a diff's file section when it is one), as the conformance script runs gitleaks' own samples. */
function kindsIn(sample: OwnSample): string[] {
  const diff = sample.text.startsWith('diff --git ')
  const spans = findSecrets(sample.text, { start: 0, end: sample.text.length, path: () => sample.path, diff })
  return spans.map((span) => RULES[span.rule]?.kind ?? '?')
}

describe('our own rules, on their true and false cases', () => {
  it('has cases for every rule of ours and for the URL rule we widened', () => {
    expect(OWN_RULE_SAMPLES.map((samples) => samples.id).sort()).toEqual(
      [...OWN_RULES.map((rule) => rule.id), 'url-password'].sort(),
    )
    for (const { tps, fps } of OWN_RULE_SAMPLES) {
      expect(tps.length).toBeGreaterThan(0)
      expect(fps.length).toBeGreaterThan(0)
    }
  })

  for (const { id, tps, fps } of OWN_RULE_SAMPLES) {
    it(`${id}: finds every true case`, () => {
      for (const sample of tps)
        expect({ sample: sample.text, kinds: kindsIn(sample) }).toEqual({ sample: sample.text, kinds: [id] })
    })

    it(`${id}: leaves every false case as it is`, () => {
      for (const sample of fps)
        expect({ sample: sample.text, kinds: kindsIn(sample) }).toEqual({ sample: sample.text, kinds: [] })
    })
  }
})

describe("gitleaks' generic rule, with the checks added for it", () => {
  it('passes over ids, digests, nonces and names in code beside a key-like name', () => {
    for (const sample of GENERIC_LOOKALIKES)
      expect({ sample: sample.text, kinds: kindsIn(sample) }).toEqual({ sample: sample.text, kinds: [] })
  })

  it('still takes hex and UUID values a credential-named key holds', () => {
    for (const sample of GENERIC_SECRETS) {
      expect({ sample: sample.text, kinds: kindsIn(sample) }).toEqual({
        sample: sample.text,
        kinds: ['generic-api-key'],
      })
    }
  })
})

/**
 * The patterns' syntax, token by token: what RE2 refuses or reads
 * otherwise, and where a backtracking engine could be made slow. Char
 * classes and escapes are skipped over, so `[+*]` or `\(` count for nothing.
 */
function patternProblems(source: string): string[] {
  const problems: string[] = []
  // For each open group: whether an unbounded quantifier is inside it.
  const groups: boolean[] = [false]
  let lastGroupUnbounded = false
  let lastWasGroup = false
  const markUnbounded = () => {
    groups[groups.length - 1] = true
  }
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string
    if (c === '\\') {
      const next = source[i + 1] ?? ''
      if (/[1-9]/.test(next) || next === 'k') problems.push(`backreference \\${next}`)
      i += 1
      lastWasGroup = false
      continue
    }
    if (c === '[') {
      for (i += 1; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i += 1
      lastWasGroup = false
      continue
    }
    if (c === '(') {
      const head = source.slice(i, i + 4)
      if (/^\(\?[=!]/.test(head) || head.startsWith('(?<=') || head.startsWith('(?<!')) problems.push('lookaround')
      else if (/^\(\?(?:<|P<)/.test(head)) problems.push('named group')
      else if (head.startsWith('(?>')) problems.push('atomic group')
      groups.push(false)
      lastWasGroup = false
      continue
    }
    if (c === ')') {
      lastGroupUnbounded = groups.pop() ?? false
      if (lastGroupUnbounded) markUnbounded()
      lastWasGroup = true
      continue
    }
    const repeat = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i)) : null
    const unbounded = c === '*' || c === '+' || (repeat !== null && repeat[2] !== undefined && repeat[3] === '')
    if (repeat !== null && Math.max(Number(repeat[1]), Number(repeat[3] || 0)) > 1000) problems.push('repeat over 1000')
    if (c === '*' || c === '+' || c === '?' || repeat !== null) {
      const end = repeat === null ? i : i + repeat[0].length - 1
      if (source[end + 1] === '+') problems.push('possessive quantifier')
      if (unbounded && lastWasGroup && lastGroupUnbounded) problems.push('unbounded quantifier inside another')
      if (unbounded) markUnbounded()
      i = end
    }
    lastWasGroup = false
  }
  return problems
}

describe('the patterns of our rules', () => {
  const patterns = EXTRA_RULES.flatMap((rule) => [rule.regex.source, ...(rule.path === null ? [] : [rule.path.source])])

  it('are ones a linear-time RE2 engine takes as JavaScript does, none slow to backtrack', () => {
    for (const source of patterns)
      expect({ source, problems: patternProblems(source) }).toEqual({ source, problems: [] })
  })

  it('are checked for what RE2 refuses or a backtracking engine trips on', () => {
    expect(patternProblems('a(?=b)')).toEqual(['lookaround'])
    expect(patternProblems('(?<!a)b')).toEqual(['lookaround'])
    expect(patternProblems('(a)\\1')).toEqual(['backreference \\1'])
    expect(patternProblems('(?<name>a)')).toEqual(['named group'])
    expect(patternProblems('(?>a+)b')).toEqual(['atomic group'])
    expect(patternProblems('a++')).toEqual(['possessive quantifier'])
    expect(patternProblems('a{1,16384}')).toEqual(['repeat over 1000'])
    expect(patternProblems('(?:a+b)*')).toEqual(['unbounded quantifier inside another'])
    expect(patternProblems('(?:(?:a+)b){1,}')).toEqual(['unbounded quantifier inside another'])
    expect(patternProblems('(?:a{1,9}b)+[+*]\\(x\\)+?')).toEqual([])
  })
})
