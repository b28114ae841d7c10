/**
 * The checks of core/redaction/filters.ts and values.ts read what a PR
 * wrote, after the rules (linear, re2js) found it; JavaScript's RegExp
 * backtracks, so none of them may read a long text with a pattern that can
 * go back over it. This watches every RegExp the redaction runs on hostile
 * and real input, and checks that the plain code standing in for the
 * patterns that used to read long values decides as those patterns did.
 */
import { afterEach, describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { keyBody } from '../../../core/redaction/filters.ts'
import { redactSharedContext } from '../../../core/redaction/redact.ts'
import { RULES } from '../../../core/redaction/rules.ts'
import { holdsAny, shannonEntropy } from '../../../core/redaction/scan.ts'
import {
  hasMustache,
  isCodeName,
  isDottedName,
  isGenericSecret,
  nameWords,
  unquoted,
} from '../../../core/redaction/values.ts'
import { OWN_RULE_SAMPLES } from './redact-own-samples.ts'

/** Whether a pattern has `*`, `+` or `{n,}` outside a class: only such a pattern can backtrack over a whole text. */
function hasUnboundedRepeat(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i += 1
    else if (c === '[') {
      for (i += 1; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i += 1
    } else if (c === '*' || c === '+' || (c === '{' && /^\{\d+,\}/.test(source.slice(i)))) return true
  }
  return false
}

type Call = { source: string; length: number }

/** Runs `work` and gives every RegExp execution it made, with the length of the text it read. */
function watched(work: () => void): Call[] {
  const calls: Call[] = []
  const exec = RegExp.prototype.exec
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    calls.push({ source: this.source, length: text.length })
    return exec.call(this, text)
  }
  try {
    work()
  } finally {
    RegExp.prototype.exec = exec
  }
  return calls
}

afterEach(() => {
  expect(Object.hasOwn(RegExp.prototype, 'exec')).toBe(true)
})

const LONG = 200_000
const repeat = (text: string, length: number) => text.repeat(Math.ceil(length / text.length)).slice(0, length)
const diffOf = (path: string, lines: string[]) =>
  [
    `diff --git a/${path} b/${path}`,
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    '',
  ].join('\n')

/** Hostile inputs for each check that reads a secret: long values, long blanks inside a match, long key bodies. */
function hostile(): { name: string; diff: string }[] {
  const digits = '0123456789'
  return [
    {
      name: 'a key body of backslashes',
      diff: diffOf('k.pem', [`-----BEGIN PRIVATE KEY-----${repeat('\\', LONG)}-----END PRIVATE KEY-----`]),
    },
    {
      name: 'a key body on one line',
      diff: diffOf('k.pem', [
        `-----BEGIN RSA PRIVATE KEY-----${repeat('MIIEpAIBAAKCAQEA', LONG)}-----END RSA PRIVATE KEY-----`,
      ]),
    },
    { name: 'PEM headers with no key', diff: diffOf('k.ts', [repeat('"-----BEGIN PRIVATE KEY-----", ', LONG)]) },
    { name: 'a .ppk body', diff: diffOf('k.ppk', ['Private-Lines: 9', repeat('AAAA', LONG), 'Private-MAC: 00']) },
    { name: 'a long generic value', diff: diffOf('a.ts', [`api_key = "${repeat(`a1b2${digits}`, LONG)}"`]) },
    { name: 'a long generic name-like value', diff: diffOf('a.ts', [`const token = ${repeat('abcdefgh', LONG)}`]) },
    { name: 'a long dotted value', diff: diffOf('a.ts', [`token = ${repeat('abc.', LONG)}x`]) },
    {
      name: 'long blanks in a netrc line',
      diff: diffOf('.netrc', [`machine${repeat(' ', LONG)}h.io login u password p4ss!word`]),
    },
    { name: 'long blanks before a password', diff: diffOf('.env', [`DB_PASSWORD${repeat(' ', LONG)}= x9{{a{{b{{c`]) },
    { name: 'many password assignments', diff: diffOf('.env', [repeat('password="{{a{{b{{c{{d""""1x!" ', LONG)]) },
    { name: 'many URL passwords', diff: diffOf('a.txt', [repeat('https://u:p4ss@h:::::::::::::::: ', LONG)]) },
    {
      name: 'many capitals before a key name',
      diff: diffOf('a.ts', [repeat('ABCDEFGHIJKLMNOPQRSTUVWXYZapi_key = "x1y2z3w4v5u6t7s8" ', LONG)]),
    },
  ]
}

const FIXTURES = join(import.meta.dir, '../../fixtures/redaction')

function fixtures(): string[] {
  return ['clean', 'planted'].flatMap((dir) =>
    readdirSync(join(FIXTURES, dir))
      .filter((name) => name.endsWith('.diff'))
      .map((name) => readFileSync(join(FIXTURES, dir, name), 'utf8')),
  )
}

describe('the checks after the rules', () => {
  it('read no long text with a JavaScript RegExp that can backtrack over it, on hostile or real input', () => {
    const samples = OWN_RULE_SAMPLES.flatMap(({ tps, fps }) => [...tps, ...fps]).map((sample) => sample.text)
    const inputs = [...hostile().map((input) => input.diff), ...fixtures(), ...samples]
    const calls = watched(() => {
      for (const diff of inputs) redactSharedContext({ title: '', commits: [], diff })
    })
    // The watch saw the checks at work, long texts included.
    expect(calls.length).toBeGreaterThan(1000)
    expect(calls.some((call) => call.length >= LONG)).toBe(true)
    const long = calls.filter((call) => call.length > 1024 && hasUnboundedRepeat(call.source))
    expect([...new Set(long.map((call) => call.source))]).toEqual([])
  })

  it('tell a pattern that can backtrack over a text from one that cannot', () => {
    expect(hasUnboundedRepeat('a+b')).toBe(true)
    expect(hasUnboundedRepeat('(?:ab)*')).toBe(true)
    expect(hasUnboundedRepeat('a{2,}')).toBe(true)
    expect(hasUnboundedRepeat('[+*]\\+a{2,5}')).toBe(false)
    expect(hasUnboundedRepeat('-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----$')).toBe(false)
  })
})

describe('the plain code that stands in for a pattern', () => {
  const from = (chars: string, max: number) =>
    fc.array(fc.constantFrom(...chars), { maxLength: max }).map((list) => list.join(''))
  const runs = { numRuns: 3000, seed: 27 }

  it('isCodeName decides as its pattern', () => {
    const pattern = /^[$@]?[A-Za-z_][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)*(?:-|::?)?$/
    fc.assert(
      fc.property(from('aZ_9$@.-:>x ', 14), (value) => isCodeName(value) === pattern.test(value)),
      runs,
    )
  })

  it('isDottedName decides as its pattern', () => {
    const pattern = /^[A-Za-z_$][A-Za-z_$]*[0-9]{0,3}(?:\.[A-Za-z_$][A-Za-z_$]*[0-9]{0,3})+$/
    fc.assert(
      fc.property(from('aZ_$.0123-', 14), (value) => isDottedName(value) === pattern.test(value)),
      runs,
    )
  })

  it('keyBody counts as the patterns it replaces', () => {
    const counted = (line: string) => {
      let material = 0
      let shortRuns = 0
      for (const run of line.replace(/\\+[nrt]/g, ' ').split(/[^A-Za-z0-9+/=]+/)) {
        if (run.length >= 16) material += run.length
        else shortRuns += run.length
      }
      const other = line.replace(/[A-Za-z0-9+/=\s]/g, '').length
      return { material, other: other + shortRuns, base64: material + shortRuns }
    }
    const line = fc
      .array(fc.oneof(from('\\nrtA+/=9 ,"\u00a0\u2028é', 6), fc.constant('MIIEpAIBAAKCAQEAx')), { maxLength: 8 })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(line, (text) => {
        // A line of 100 or more characters is never taken for an armour header, so the check is on the counts alone.
        const padded = `${text}${' '.repeat(100)}`
        expect(keyBody(padded, false, false)).toEqual(counted(padded))
      }),
      runs,
    )
  })

  it('unquoted and hasMustache read as the patterns they replace', () => {
    const mustache = /\{\{[ \t]*[A-Za-z_][^}]*\}\}/
    fc.assert(
      fc.property(from('"\'`{} \tab1!', 14), (text) => {
        expect(unquoted(text)).toBe(text.replace(/^["'`]+|["'`]+$/g, ''))
        expect(hasMustache(text)).toBe(mustache.test(text))
      }),
      runs,
    )
  })

  it('nameWords splits capitals as its pattern did', () => {
    const words = (name: string) =>
      name
        .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
        .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((word) => word !== '')
    fc.assert(
      fc.property(from('AaBb0_-', 14), (name) => Bun.deepEquals(nameWords(name), words(name))),
      runs,
    )
  })

  it("holdsAny finds a stopword as `some(includes)` did, over gitleaks' own list", () => {
    const generic = RULES.find((rule) => rule.kind === 'generic-api-key') as (typeof RULES)[number]
    const stopwords = generic.allowlists.flatMap((list) => list.stopwords)
    expect(stopwords.length).toBeGreaterThan(1000)
    const pieces = fc.constantFrom(...stopwords.slice(0, 200), 'a', 'x9', '_', 'ke', 'zz')
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 6 }), (parts) => {
        const text = parts.join('')
        expect(holdsAny(text, stopwords)).toBe(stopwords.some((word) => text.includes(word)))
      }),
      runs,
    )
    expect(holdsAny('', ['x'])).toBe(false)
  })

  it('shannonEntropy sums as the Map it replaced, to the last bit', () => {
    const byMap = (value: string) => {
      if (value === '') return 0
      const counts = new Map<number, number>()
      for (let i = 0; i < value.length; i++) counts.set(value.charCodeAt(i), (counts.get(value.charCodeAt(i)) ?? 0) + 1)
      let entropy = 0
      for (const count of counts.values()) entropy -= (count / value.length) * Math.log2(count / value.length)
      return entropy
    }
    fc.assert(
      fc.property(from('abcXYZ019+/=_-\u00e9\ud83d\ude00\u212a', 60), (value) => {
        expect(shannonEntropy(value)).toBe(byMap(value))
      }),
      runs,
    )
  })

  it('isGenericSecret reads hex and UUIDs as its patterns did', () => {
    const hex = /^(?:[0-9a-f]{16,}|[0-9A-F]{16,})$/
    for (const [value, isHex] of [
      ['0123456789abcdef', true],
      ['0123456789ABCDEF', true],
      ['0123456789abcdeF', false],
      ['0123456789abcde', false],
      ['0123456789012345', true],
    ] as const) {
      expect(hex.test(value)).toBe(isHex)
      // Under an id's name, hex is no secret; anything else of this shape is.
      expect(isGenericSecret(value, 'cache_id')).toBe(!isHex)
    }
  })
})
