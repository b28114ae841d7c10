import { describe, expect, it } from 'bun:test'
import {
  checkJsonRow,
  displayWidth,
  questionProgressLine,
  renderCheckReport,
  renderTerminalTable,
  rowProgressLine,
  truncateToWidth,
  wrapToWidth,
} from '../../../core/review/check-report.ts'
import { anUnansweredRow, aRow, aRowError } from '../../support/builders.ts'

const LONG_REASON =
  'Every timestamp the branch adds is built with a zone: datetime.now(timezone.utc) in clock.py and an aware parse in the importer.'

describe('displayWidth', () => {
  it('counts emoji and wide characters as two columns and combining marks as none', () => {
    expect(displayWidth('yes ✅')).toBe(6)
    expect(displayWidth('yes ❌')).toBe(6)
    expect(displayWidth('日本')).toBe(4)
    expect(displayWidth('e\u0301')).toBe(1)
    expect(displayWidth('abc')).toBe(3)
  })
})

describe('wrapToWidth and truncateToWidth', () => {
  it('breaks at spaces, and cuts a word longer than the width', () => {
    expect(wrapToWidth('aa bb cc', 5)).toEqual(['aa bb', 'cc'])
    expect(wrapToWidth('abcdefgh', 3)).toEqual(['abc', 'def', 'gh'])
    expect(wrapToWidth('short', 80)).toEqual(['short'])
  })

  it('truncates with an ellipsis inside the width', () => {
    expect(truncateToWidth('abcdef', 4)).toBe('abc…')
    expect(truncateToWidth('abc', 4)).toBe('abc')
  })
})

describe('renderTerminalTable', () => {
  const rows = [
    aRow({ name: 'datetime', certainty: 92, reason: LONG_REASON }),
    aRow({
      name: 'no-ads',
      polarity: 'negative',
      threshold: 90,
      verdict: 'match',
      certainty: 95,
      fails: true,
      reason: 'Commit 2 has a co-authored-by line.',
    }),
    anUnansweredRow({ name: 'slow', error: aRowError({ kind: 'timeout', detail: 'no answer within 180000 ms' }) }),
  ]

  it("aligns the review's columns, the numbers to the right", () => {
    const lines = renderTerminalTable(rows, { width: null }).split('\n')
    expect(lines.slice(0, 2)).toEqual([
      'classification  polarity  verdict  certainty  threshold  counted  reason',
      '--------------  --------  -------  ---------  ---------  -------  ------',
    ])
    expect(lines[2]).toBe(`datetime        positive  match           92         80  yes ✅   ${LONG_REASON}`)
    expect(lines[3]).toBe(
      'no-ads          negative  match           95         90  yes ❌   Commit 2 has a co-authored-by line.',
    )
    expect(lines[4]).toBe(
      'slow            positive  —                —         80  no       no answer (timeout): no answer within 180000 ms',
    )
  })

  it('wraps the reason under its own column to the width', () => {
    const lines = renderTerminalTable(rows.slice(0, 1), { width: 100 }).split('\n')
    const start = lines[0]?.indexOf('reason') ?? -1
    expect(lines.length).toBeGreaterThan(3)
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(100)
    // The emoji in the first row takes two columns but one string index.
    const [first = '', ...rest] = lines.slice(2)
    for (const line of rest) expect(line.slice(0, start).trim()).toBe('')
    expect([first.slice(start - 1), ...rest.map((line) => line.slice(start))].join(' ')).toBe(LONG_REASON)
  })

  it('puts each reason under its row when the other columns leave it too little room', () => {
    const lines = renderTerminalTable(rows.slice(0, 2), { width: 80 }).split('\n')
    expect(lines.slice(0, 3)).toEqual([
      'classification  polarity  verdict  certainty  threshold  counted',
      '    reason',
      '--------------  --------  -------  ---------  ---------  -------',
    ])
    expect(lines[3]).toBe('datetime        positive  match           92         80  yes ✅')
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80)
    const reasonLines = lines.slice(4, lines.indexOf(lines.find((line) => line.startsWith('no-ads')) ?? ''))
    expect(reasonLines.length).toBeGreaterThan(1)
    expect(reasonLines.map((line) => line.slice(4)).join(' ')).toBe(LONG_REASON)
    expect(lines.at(-1)).toBe('    Commit 2 has a co-authored-by line.')
  })

  it('prints text as it is, with no markdown escapes, and drops control characters', () => {
    const table = renderTerminalTable(
      [aRow({ name: 'a|b', reason: 'Ping @ops about #12 <b>now</b>\x1b[31m red\u202e.' })],
      { width: null },
    )
    expect(table).toContain('a|b')
    expect(table).toContain('Ping @ops about #12 <b>now</b>[31m red.')
    expect(table).not.toContain('&#')
    expect(table).not.toContain('\x1b')
    expect(table).not.toContain('\u200b')
  })
})

describe('renderCheckReport', () => {
  it('ends with the overall verdict on its own line', () => {
    const report = renderCheckReport({ rows: [aRow()], overall: 'approve', reason: null }, { width: null })
    expect(report.endsWith('\n\nOverall: approve.\n')).toBe(true)
  })

  it('says why there is no verdict before the overall line, with or without rows', () => {
    const report = renderCheckReport(
      { rows: [], overall: 'no-verdict', reason: "the PR's commits and diff come to 700 KB, over the 600 KB budget" },
      { width: null },
    )
    expect(report).toBe(
      "No verdict: the PR's commits and diff come to 700 KB, over the 600 KB budget\nOverall: no verdict.\n",
    )
  })
})

describe('checkJsonRow', () => {
  it('keeps every field of the row but its token counts', () => {
    const row = aRow({ usage: { input: 1, output: 2, cache_read: 3, cache_write: 4 } })
    expect(checkJsonRow(row)).toEqual({
      name: row.name,
      polarity: row.polarity,
      threshold: row.threshold,
      verdict: row.verdict,
      certainty: row.certainty,
      reason: row.reason,
      counted: row.counted,
      fails: row.fails,
      error: null,
    })
  })
})

describe('progress lines', () => {
  it('name the rule, the count, and the answer', () => {
    expect(questionProgressLine('datetime', 1, 3)).toBe(
      'asking "datetime" (1 of 3; the others wait for it, then read its context from the cache)',
    )
    expect(questionProgressLine('no-ads', 2, 3)).toBe('asking "no-ads" (2 of 3)')
    expect(rowProgressLine(aRow({ verdict: 'no-match', certainty: 70 }), 1, 3)).toBe(
      'answered "datetime" (1 of 3 done): no match, certainty 70',
    )
    expect(rowProgressLine(anUnansweredRow({ error: aRowError({ kind: 'malformed-answer' }) }), 3, 3)).toBe(
      'no answer for "datetime" (3 of 3 done): malformed answer',
    )
  })

  it('keep a name with a line break or an escape on one plain line', () => {
    expect(questionProgressLine('a\nb\x1b[2J', 2, 2)).toBe('asking "a b[2J" (2 of 2)')
  })
})

describe('renderCheckReport with a redaction', () => {
  it('says below the table how many secrets of which kinds were redacted and where, before the overall line', () => {
    const report = renderCheckReport(
      {
        rows: [aRow()],
        overall: 'approve',
        reason: null,
        redaction: {
          redacted: 1,
          places: 2,
          findings: [
            { kind: 'private-key', n: 1, part: 'diff', path: 'key.pem', line: 1, side: 'new' },
            { kind: 'private-key', n: 1, part: 'diff', path: 'old.pem', line: 3, side: 'old' },
          ],
        },
      },
      { width: null },
    )
    const lines = report.trimEnd().split('\n')
    expect(lines.slice(-5)).toEqual([
      'Secrets redacted: 1 secret redacted before the pull request went to the model, each replaced by a placeholder: 1 private-key. No value is shown here.',
      '- private-key #1: key.pem, line 1',
      '- private-key #1: old.pem, line 3 (a removed line)',
      '',
      'Overall: approve.',
    ])
  })
})
