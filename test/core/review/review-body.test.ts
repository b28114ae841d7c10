import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import type { Nodes, Root, Table } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { gfm } from 'micromark-extension-gfm'
import {
  escapeTableCell,
  RETRY_HINT,
  renderNoVerdictBody,
  renderReviewBody,
  renderReviewTable,
  reviewEvent,
} from '../../../core/review/review-body.ts'
import type { Overall, ReviewEvent, Row } from '../../../core/wire/types.ts'
import { anUnansweredRow, aRow, aRowError } from '../../support/builders.ts'

const ZWSP = '\u200B'

function parseGfm(markdown: string): Root {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
}

/** What a reader sees of a node: its text, with references decoded. */
function visibleText(node: Nodes): string {
  if (node.type === 'text' || node.type === 'inlineCode') return node.value
  if ('children' in node) return node.children.map((child) => visibleText(child)).join('')
  return ''
}

function nodeTypes(node: Nodes): string[] {
  const own: string[] = [node.type]
  if (!('children' in node)) return own
  return own.concat(node.children.flatMap((child) => nodeTypes(child)))
}

function onlyTable(root: Root): Table {
  const tables = root.children.filter((child): child is Table => child.type === 'table')
  expect(tables).toHaveLength(1)
  const [table] = tables
  if (table === undefined) throw new Error('no table')
  return table
}

/**
 * The flattening the spec asks for, written out independently of the code
 * under test: line breaks, tabs and other spaces become one space; control,
 * format and bidi characters go, but for the two joiners; the ends are
 * trimmed.
 */
function expectedFlat(text: string): string {
  let out = ''
  for (const char of text.toWellFormed()) {
    if (char === '\u200C' || char === '\u200D') out += char
    else if (char === '\uFEFF') continue
    else if (/[\s\u0085]/u.test(char)) out += ' '
    else if (/[\p{Cc}\p{Cf}]/u.test(char)) continue
    else out += char
  }
  return out.replace(/ +/gu, ' ').trim()
}

/** Whether flattened text shows nothing: empty, or only the two joiners (which flattening keeps) and spaces. */
function showsNothing(flat: string): boolean {
  return /^(?:\u200C|\u200D| )*$/u.test(flat)
}

/** Every text node's value: what a forge's post-processor searches once the Markdown is rendered. */
function textValues(node: Nodes): string[] {
  if (node.type === 'text') return [node.value]
  if (!('children' in node)) return []
  return node.children.flatMap((child) => textValues(child))
}

/**
 * A Go (RE2) pattern as a JS RegExp that matches the same strings here: RE2's
 * `\s` and `\S` are ASCII only (`[\t\n\f\r ]`), JS's are Unicode; `(?P<n>`
 * is `(?<n>`. `\w`, `\d` and `\b` are ASCII in both.
 */
function goRegExp(source: string): RegExp {
  const space = '\\t\\n\\f\\r '
  let out = ''
  let inClass = false
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i]
    if (char === '\\') {
      const next = source[i + 1] ?? ''
      i += 1
      if (next === 's') out += inClass ? space : `[${space}]`
      else if (next === 'S' && !inClass) out += `[^${space}]`
      else if (next === 'S') throw new Error('\\S in a class has no JS spelling here')
      else out += `\\${next}`
      continue
    }
    if (char === '[' && !inClass) inClass = true
    else if (char === ']' && inClass) inClass = false
    out += char
  }
  return new RegExp(out.replaceAll('(?P<', '(?<'))
}

const APP_URL = 'https://forge.example/'

/**
 * Forgejo's own patterns for what its markup post-processor and its reference
 * search turn into a link, an image, a mention, a reference or a notification,
 * found in the rendered text of a comment. Ported from Forgejo v15.0.3 (the
 * upstream mirror github.com/rohitkumarankam/forgejo, tag v15.0.3), as written
 * there; `APP_URL` stands for the forge's `setting.AppURL`. Left out, as
 * core/review/review-body.ts says why: `hashCurrentPattern`, `issueAlphanumericPattern`
 * and `EmojiShortCodeRegex`, which link nowhere the text can choose.
 */
const forgejoPatterns: ReadonlyArray<[string, RegExp]> = [
  // modules/markup/html.go
  ['shortLinkPattern', goRegExp(String.raw`\[\[(.*?)\]\](\w*)`)],
  [
    'anyHashPattern',
    goRegExp(
      String.raw`https?://[^\s/]+/(\S+/(?:commit|tree|blob))/([0-9a-f]{7,64})(/[-+~_%.a-zA-Z0-9/]+)?(\?[-+~_%\.a-zA-Z0-9=&]+)?(#[-+~_%.a-zA-Z0-9]+)?`,
    ),
  ],
  [
    'comparePattern',
    goRegExp(
      String.raw`https?://[^\s/]+/(?:\S+/)?([^\s/]+/[^\s/]+)/compare/([0-9a-f]{7,64})(\.\.\.?)([0-9a-f]{7,64})?(\?[-+~_%\.a-zA-Z0-9=&/]+)?(#[-+~_%.a-zA-Z0-9]+)?`,
    ),
  ],
  [
    'pullReviewCommitPattern',
    goRegExp(
      String.raw`https?://[^\s/]+/(?:\S+/)?([^\s/]+/[^\s/]+)/pulls/(\d+)/commits/([0-9a-f]{7,64})(#[-+~_%.a-zA-Z0-9]+)?`,
    ),
  ],
  [
    'emailRegex',
    goRegExp(
      "(?:\\s|^|\\(|\\[)([a-zA-Z0-9.!#$%&'*+\\/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9]{2,}(?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+)(?:\\s|$|\\)|\\]|;|,|\\?|!|\\.(\\s|$))",
    ),
  ],
  [
    'fediRegex',
    goRegExp(
      "(?:\\s|^|\\(|\\[)([@!]([a-zA-Z0-9.!#$%&'*+\\/=?^_`{|}~-]+)@([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9]{2,}(?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+))(?:\\s|$|\\)|\\]|;|,|\\?|!|\\.(\\s|$))",
    ),
  ],
  [
    'issueFullPattern',
    goRegExp(
      APP_URL.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') +
        String.raw`(?P<user>[\w_.-]+)\/(?P<repo>[\w_.-]+)\/(?:issues|pulls)\/(?P<num>(?:\w{1,10}-)?[1-9][0-9]*)(?P<subpath>\/[\w_.-]+)?(?:(?P<comment>#(?:issue|issuecomment)-\d+)|(?:[\?#](?:\S+)?))?\b`,
    ),
  ],
  // linkProcessor's common.LinkRegex is xurls.StrictMatchingScheme("https?://") (modules/markup/common/html.go):
  // the scheme it requires, any case.
  ['LinkRegex (its scheme)', /https?:\/\//i],
  // modules/markup/file_preview.go
  [
    'filePreviewPattern',
    goRegExp(String.raw`https?://((?:\S+/){3})src/commit/([0-9a-f]{4,64})/(\S+)#(L\d+(?:-L?\d+)?)`),
  ],
  // modules/references/references.go
  [
    'mentionPattern',
    goRegExp(
      String.raw`(?:\s|^|\(|\[)(@[0-9a-zA-Z-_]+|@[0-9a-zA-Z-_]+\/?[0-9a-zA-Z-_]+|@[0-9a-zA-Z-_][0-9a-zA-Z-_.]+\/?[0-9a-zA-Z-_.]+[0-9a-zA-Z-_])(?:'|\s|[:,;.?!]\s|[:,;.?!]?$|\)|\])`,
    ),
  ],
  [
    'issueNumericPattern',
    goRegExp(String.raw`(?:\s|^|\(|\[|\'|\")([#!][0-9]+)(?:\s|$|\)|\]|\'|\"|[:;,.?!]\s|[:;,.?!]$)`),
  ],
  [
    'crossReferenceIssueNumericPattern',
    goRegExp(
      String.raw`(?:\s|^|\(|\[)([0-9a-zA-Z-_\.]+/[0-9a-zA-Z-_\.]+[#!][0-9]+)(?:\s|$|\)|\]|[:;,.?!]\s|[:;,.?!]$)`,
    ),
  ],
  [
    'crossReferenceCommitPattern',
    goRegExp(
      String.raw`(?:\s|^|\(|\[)([0-9a-zA-Z-_\.]+)/([0-9a-zA-Z-_\.]+)@([0-9a-f]{7,64})(?:\s|$|\)|\]|[:;,.?!]\s|[:;,.?!]$)`,
    ),
  ],
  [
    'timeLogPattern',
    goRegExp(String.raw`(?:\s|^|\(|\[)(@([0-9]+([\.,][0-9]+)?(w|d|m|h))+)(?:\s|$|\)|\]|[:;,.?!]\s|[:;,.?!]$)`),
  ],
  [
    'giteaIssuePullPattern',
    goRegExp(
      String.raw`(\s|^|\(|\[)` +
        APP_URL.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') +
        String.raw`([0-9a-zA-Z-_\.]+/[0-9a-zA-Z-_\.]+)/((?:issues)|(?:pulls))/([0-9]+)(?:\s|$|\)|\]|[:;,.?!]\s|[:;,.?!]$)`,
    ),
  ],
]

describe("Forgejo's patterns, ported", () => {
  // Each must still find what it is for, or a test that it finds nothing would prove nothing.
  const examples: Record<string, string> = {
    shortLinkPattern: '[[Click here|https://evil.example/login]]',
    anyHashPattern: 'https://\u200Bevil.example/o/r/commit/abcdef1',
    comparePattern: 'https://\u200Bevil.example/o/r/compare/abcdef1...abcdef2',
    pullReviewCommitPattern: 'https://\u200Bevil.example/o/r/pulls/1/commits/abcdef1',
    emailRegex: 'mail a@b.co now',
    fediRegex: 'ask @a@b.co now',
    issueFullPattern: 'https://forge.example/o/r/issues/12',
    'LinkRegex (its scheme)': 'HTTPS://x.y',
    filePreviewPattern: 'https://forge.example/o/r/src/commit/abcd/f.go#L1-L2',
    mentionPattern: 'hi @alice.',
    issueNumericPattern: 'closes #12',
    crossReferenceIssueNumericPattern: 'see o/r!12',
    crossReferenceCommitPattern: 'see o/r@abcdef1',
    timeLogPattern: 'spent @1h',
    giteaIssuePullPattern: 'see https://forge.example/o/r/pulls/3',
  }
  for (const [name, pattern] of forgejoPatterns) {
    it(`${name} finds its own example`, () => {
      expect(examples[name]).toBeDefined()
      expect(pattern.test(examples[name] ?? '')).toBe(true)
    })
  }
  it('read \\s as ASCII only, as RE2 does: a zero-width space passes for a host character', () => {
    expect(goRegExp(String.raw`^[^\s/]+$`).test('\u200Bevil.example')).toBe(true)
    expect(goRegExp(String.raw`^\s$`).test('\u00A0')).toBe(false)
  })
})

describe('escapeTableCell', () => {
  const cases: Array<{ name: string; input: string; expected: string }> = [
    {
      name: 'leaves plain text alone',
      input: 'Two new timestamps use naive datetimes.',
      expected: 'Two new timestamps use naive datetimes.',
    },
    {
      name: 'flattens CRLF, LF, tabs and line separators',
      input: ' a\r\nb\n\tc\u2028d\u2029e\u0085f ',
      expected: 'a b c d e f',
    },
    { name: 'escapes a pipe', input: 'a | b', expected: 'a &#124; b' },
    {
      name: 'escapes backticks and brackets',
      input: '`x` [y](z)',
      expected: `&#96;x&#96; &#91;${ZWSP}y&#93;&#40;z&#41;`,
    },
    { name: 'escapes HTML', input: '<a href="x">y</a>', expected: '&lt;a href="x"&gt;y&lt;/a&gt;' },
    {
      name: 'escapes an entity so it stays literal',
      input: '&#124; &amp;',
      expected: `&amp;&#35;${ZWSP}124; &amp;amp;`,
    },
    {
      name: 'escapes emphasis, strikethrough, math and backslash',
      input: '*a* _b_ ~c~ $d$ \\(e\\)',
      expected: '&#42;a&#42; &#95;b&#95; &#126;c&#126; &#36;d&#36; &#92;&#40;e&#92;&#41;',
    },
    { name: 'breaks a mention', input: '@alice', expected: `&#64;${ZWSP}alice` },
    {
      name: 'breaks issue and PR references',
      input: 'owner/repo#12 !3',
      expected: `owner/repo&#35;${ZWSP}12 &#33;${ZWSP}3`,
    },
    {
      name: 'breaks a URL between its colon and its slashes',
      input: 'see https://x.y',
      expected: `see https&#58;${ZWSP}//x.y`,
    },
    {
      name: "breaks Forgejo's short link",
      input: '[[Click here|https://evil.example/login]] [[https://e.com/i.png]]',
      expected:
        `&#91;${ZWSP}&#91;${ZWSP}Click here&#124;https&#58;${ZWSP}//evil.example/login&#93;&#93; ` +
        `&#91;${ZWSP}&#91;${ZWSP}https&#58;${ZWSP}//e.com/i.png&#93;&#93;`,
    },
    { name: 'breaks www. in any case', input: 'WwW.x.y', expected: `WwW${ZWSP}&#46;${ZWSP}x.y` },
    { name: 'breaks an email address', input: 'a@b.co', expected: `a&#64;${ZWSP}b.co` },
    { name: 'drops bidi overrides and isolates', input: 'a\u202Eb\u2066c\u2069d\u202Ae', expected: 'abcde' },
    { name: 'drops control characters, not their neighbours', input: 'a\u0000b\u0007c\u007Fd', expected: 'abcd' },
    {
      name: 'drops characters that would otherwise join into a mention',
      input: '@\u0000alice w\u200Bww.x',
      expected: `&#64;${ZWSP}alice www${ZWSP}&#46;${ZWSP}x`,
    },
    { name: 'keeps an emoji ZWJ sequence whole', input: 'ok 👨‍👩‍👧 🇩🇪', expected: 'ok 👨‍👩‍👧 🇩🇪' },
    { name: 'replaces a lone surrogate', input: 'a\uD800b', expected: 'a\uFFFDb' },
  ]
  for (const { name, input, expected } of cases) {
    it(name, () => {
      expect(escapeTableCell(input)).toBe(expected)
    })
  }
})

describe('renderReviewTable', () => {
  it('renders the spec example', () => {
    const rows: Row[] = [
      aRow({
        name: 'datetime',
        verdict: 'no-match',
        certainty: 92,
        threshold: 80,
        counted: true,
        fails: true,
        reason: 'Two new timestamps use naive datetimes.',
      }),
      aRow({
        name: 'no-ads',
        polarity: 'negative',
        verdict: 'no-match',
        certainty: 99,
        threshold: 90,
        counted: true,
        fails: false,
        reason: 'No commit message carries an AI attribution.',
      }),
      aRow({
        name: 'bao-first',
        verdict: 'not-applicable',
        certainty: 95,
        threshold: 70,
        counted: false,
        reason: 'The PR adds no secret.',
      }),
      aRow({
        name: 'docs-updated',
        verdict: 'match',
        certainty: 41,
        threshold: 60,
        counted: false,
        reason: 'Below threshold.',
      }),
    ]
    expect(renderReviewTable(rows, 'request-changes')).toBe(
      [
        '| classification | polarity | verdict | certainty | threshold | counted | reason |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        '| datetime | positive | no match | 92 | 80 | yes ❌ | Two new timestamps use naive datetimes. |',
        '| no-ads | negative | no match | 99 | 90 | yes ✅ | No commit message carries an AI attribution. |',
        '| bao-first | positive | not applicable | 95 | 70 | no | The PR adds no secret. |',
        '| docs-updated | positive | match | 41 | 60 | no | Below threshold. |',
        '',
        '**Overall: request changes.**',
      ].join('\n'),
    )
  })

  it('shows an unanswered row with a dash and its error in the reason', () => {
    const row = anUnansweredRow({ error: aRowError({ kind: 'malformed-answer', detail: 'duplicate key' }) })
    expect(renderReviewTable([row], 'no-verdict').split('\n')[2]).toBe(
      '| datetime | positive | — | — | 80 | no | no answer &#40;malformed answer&#41;: duplicate key |',
    )
  })

  it('shows an error kind alone when the detail is empty', () => {
    const row = anUnansweredRow({ error: aRowError({ kind: 'timeout', detail: '' }) })
    expect(renderReviewTable([row], 'no-verdict')).toContain('| no | no answer &#40;timeout&#41; |')
  })

  // The joiners are the only invisible characters flattening keeps: a detail of nothing else shows nothing.
  for (const detail of ['\u200D', '\u200C\u200D', ' \u200D \t\u200C\n', '\u200B\u200D\uFEFF']) {
    it(`shows an error kind alone, with no dangling colon, for a detail of ${JSON.stringify(detail)}`, () => {
      const row = anUnansweredRow({ error: aRowError({ kind: 'runtime', detail }) })
      expect(renderReviewTable([row], 'no-verdict').split('\n')[2]).toBe(
        '| datetime | positive | — | — | 80 | no | no answer &#40;runtime error&#41; |',
      )
    })
  }

  it('keeps a detail whose joiners sit in visible text', () => {
    const row = anUnansweredRow({ error: aRowError({ kind: 'runtime', detail: '👨‍👩‍👧 exited' }) })
    expect(renderReviewTable([row], 'no-verdict')).toContain('| no answer &#40;runtime error&#41;: 👨‍👩‍👧 exited |')
  })

  const overallLines: Array<[Overall, string]> = [
    ['approve', '**Overall: approve.**'],
    ['request-changes', '**Overall: request changes.**'],
    ['no-verdict', '**Overall: no verdict.**'],
  ]
  for (const [overall, line] of overallLines) {
    it(`ends ${overall} with ${line}`, () => {
      expect(renderReviewTable([aRow()], overall)).toEndWith(`\n\n${line}`)
    })
  }

  it('escapes the name too, which comes from the repo', () => {
    const table = renderReviewTable([aRow({ name: 'a|b @x' })], 'approve')
    expect(table).toContain(`| a&#124;b &#64;${ZWSP}x | positive |`)
  })
})

describe('renderReviewBody', () => {
  it('is the table for an approval', () => {
    const rows = [aRow()]
    expect(renderReviewBody(rows, 'approve')).toBe(renderReviewTable(rows, 'approve'))
  })
})

describe('renderNoVerdictBody', () => {
  it('starts with the reason, then the table, and ends with the retry hint', () => {
    const rows = [anUnansweredRow()]
    const body = renderNoVerdictBody('1 of 1 classifications got no answer (timeout: 1).', {
      rows,
      overall: 'no-verdict',
    })
    expect(body).toBe(
      [
        '**No verdict:** 1 of 1 classifications got no answer &#40;timeout: 1&#41;.',
        renderReviewTable(rows, 'no-verdict'),
        RETRY_HINT,
      ].join('\n\n'),
    )
  })

  it('has no table when there is none', () => {
    expect(renderNoVerdictBody('the rules file does not load', null)).toBe(
      `**No verdict:** the rules file does not load\n\n${RETRY_HINT}`,
    )
  })

  it('flattens and escapes the reason so it cannot close the bold or break out', () => {
    const body = renderNoVerdictBody('forge said:\n\n# **boom** @admin', null)
    const root = parseGfm(body)
    expect(root.children.map((child) => child.type)).toEqual(['paragraph', 'paragraph'])
    expect(nodeTypes(root).filter((type) => type === 'strong')).toHaveLength(1)
    expect(visibleText(root)).toContain(`forge said: #${ZWSP} **boom** @${ZWSP}admin`)
  })

  it('tells the reader to remove and re-request the reviewer', () => {
    expect(RETRY_HINT).toContain('remove review-classifier')
    expect(RETRY_HINT).toContain('request its review again')
  })
})

describe('reviewEvent', () => {
  const events: Array<[Overall, ReviewEvent]> = [
    ['approve', 'APPROVED'],
    ['request-changes', 'REQUEST_CHANGES'],
    ['no-verdict', 'COMMENT'],
  ]
  for (const [overall, event] of events) {
    it(`posts ${overall} as ${event}`, () => {
      expect(reviewEvent(overall)).toBe(event)
    })
  }
})

describe('escapeTableCell in a real GFM parser', () => {
  const adversarial = fc.constantFrom(
    '|',
    '\\|',
    '`',
    '```',
    '[',
    ']',
    '(',
    ')',
    '[x](https://e.com)',
    '![i](https://e.com/i.png)',
    '[r]: https://e.com',
    '<a href="https://e.com">x</a>',
    '<script>',
    '<https://e.com>',
    '@user',
    '@',
    '#12',
    '#',
    'owner/repo#12',
    '!3',
    '!',
    'https://x.y',
    'HTTP://X.Y',
    'ftp://x.y',
    '://',
    'www.x.y',
    'WWW.',
    'ww',
    'w',
    '.',
    'a@b.co',
    'mailto:a@b.co',
    '&#124;',
    '&#64;',
    '&amp;',
    '&',
    ';',
    '\n',
    '\r\n',
    '\r',
    '\t',
    '\u2028',
    '\u2029',
    '\u0085',
    '\u000B',
    '\f',
    '😀',
    '👨‍👩‍👧',
    '🇩🇪',
    '\u202E',
    '\u2066',
    '\u2069',
    '\u200B',
    '\u200D',
    '\uFEFF',
    '\u0000',
    '\\',
    '*',
    '_',
    '~',
    '$',
    '**',
    '__',
    '~~',
    '$$',
    '\\(',
    '\\)',
    '  ',
    ' ',
    '-',
    '---',
    ':',
    '>',
    '> ',
    '#' + '# ',
    '1.',
    '[^1]',
    ':smile:',
    'x',
    '9',
    // Forgejo's rendered-text processors (see forgejoPatterns below).
    '[[',
    ']]',
    '[[Click here|https://evil.example/login]]',
    '[[https://e.com/i.png]]',
    '[[x]]',
    'https://e.com/o/r/commit/abcdef1',
    'https://e.com/o/r/compare/abcdef1...abcdef2',
    'https://e.com/o/r/pulls/1/commits/abcdef1',
    'https://forge.example/o/r/src/commit/abcd/f.go#L1-L2',
    'https://forge.example/o/r/issues/12',
    '@a@b.co',
    '!a@b.co',
    'o/r@abcdef1',
    'o/r!12',
    '@1h',
    'closes #12',
    'deadbeef',
    'ABC-12',
  )
  const anyChar = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })
  const cellText = fc.string({
    unit: fc.oneof({ arbitrary: adversarial, weight: 4 }, { arbitrary: anyChar, weight: 1 }),
    maxLength: 40,
  })
  const answeredRow = fc.record({ name: cellText, reason: cellText }).map(({ name, reason }) => aRow({ name, reason }))
  const unansweredRow = fc
    .record({ name: cellText, detail: cellText })
    .map(({ name, detail }) => anUnansweredRow({ name, error: aRowError({ kind: 'runtime', detail }) }))
  const rows = fc.array(fc.oneof(answeredRow, unansweredRow), { minLength: 1, maxLength: 10 })

  it('keeps one table of seven cells a row, with no link, image or HTML, whatever the text', () => {
    fc.assert(
      fc.property(rows, (tableRows) => {
        const root = parseGfm(renderReviewTable(tableRows, 'no-verdict'))
        const table = onlyTable(root)
        expect(table.children).toHaveLength(tableRows.length + 1)
        for (const row of table.children) expect(row.children).toHaveLength(7)
        const forbidden = [
          'link',
          'linkReference',
          'html',
          'image',
          'imageReference',
          'definition',
          'inlineCode',
          'emphasis',
          'strong',
          'delete',
          'footnoteReference',
        ]
        expect(nodeTypes(table).filter((type) => forbidden.includes(type))).toEqual([])
      }),
      { numRuns: 300 },
    )
  })

  it('leaves no mention, reference or link start in what a reader sees', () => {
    fc.assert(
      fc.property(rows, (tableRows) => {
        const table = onlyTable(parseGfm(renderReviewTable(tableRows, 'no-verdict')))
        for (const row of table.children.slice(1)) {
          for (const cell of row.children) {
            const text = visibleText(cell)
            expect(text).not.toMatch(/@[\p{L}\p{N}_]/u)
            expect(text).not.toMatch(/[#!][\p{L}\p{N}_]/u)
            expect(text).not.toMatch(/:\/\//u)
            expect(text).not.toMatch(/www\./iu)
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it("leaves nothing Forgejo's post-processor or reference search would act on in any rendered text", () => {
    const reasons = fc.oneof(cellText, fc.constant('[[Click here|https://evil.example/login]]'))
    fc.assert(
      fc.property(rows, reasons, (tableRows, reason) => {
        const bodies = [
          renderReviewTable(tableRows, 'approve'),
          renderNoVerdictBody(reason, { rows: tableRows, overall: 'no-verdict' }),
        ]
        for (const body of bodies) {
          // In the source too, where goldmark's linkify looks (modules/markup/common/linkify.go).
          expect(body).not.toMatch(/:\/\/|www\./iu)
          for (const text of textValues(parseGfm(body))) {
            for (const [name, pattern] of forgejoPatterns) {
              if (pattern.test(text)) throw new Error(`${name} matches the rendered text ${JSON.stringify(text)}`)
            }
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('shows the name and reason as the flattened text, give or take zero-width spaces', () => {
    fc.assert(
      fc.property(rows, (tableRows) => {
        const table = onlyTable(parseGfm(renderReviewTable(tableRows, 'approve')))
        tableRows.forEach((row, i) => {
          const cells = table.children[i + 1]?.children ?? []
          const [nameCell] = cells
          const reasonCell = cells[6]
          if (nameCell === undefined || reasonCell === undefined) throw new Error('missing cell')
          const reason = row.error === null ? (row.reason ?? '') : row.error.detail
          const shownReason = visibleText(reasonCell).replaceAll(ZWSP, '')
          expect(visibleText(nameCell).replaceAll(ZWSP, '')).toBe(expectedFlat(row.name))
          if (row.error === null) expect(shownReason).toBe(expectedFlat(reason))
          else
            expect(shownReason).toBe(
              `no answer (runtime error)${showsNothing(expectedFlat(reason)) ? '' : `: ${expectedFlat(reason)}`}`,
            )
        })
      }),
      { numRuns: 300 },
    )
  })
})

describe('the redaction below the table', () => {
  const redaction = {
    redacted: 2,
    places: 3,
    findings: [
      { kind: 'aws-access-token', n: 1, part: 'title' as const },
      { kind: 'github-pat', n: 2, part: 'commit' as const, commit: 2 },
      { kind: 'github-pat', n: 2, part: 'diff' as const, path: 'src/*a*|b.ts', line: 7, side: 'new' as const },
    ],
  }

  it('counts the secrets by kind and says where each was, escaped like the table, after the overall line', () => {
    const body = renderReviewBody([aRow()], 'approve', redaction)
    expect(body.startsWith(renderReviewTable([aRow()], 'approve'))).toBe(true)
    expect(body).toContain(
      '**Secrets redacted:** 2 secrets redacted before the pull request went to the model, each replaced by a placeholder: 1 aws-access-token, 1 github-pat. No value is shown here.',
    )
    expect(body).toContain(`- aws-access-token &#35;${ZWSP}1: the title`)
    expect(body).toContain(`- github-pat &#35;${ZWSP}2: the message of commit 2`)
    expect(body).toContain(`- github-pat &#35;${ZWSP}2: src/&#42;a&#42;&#124;b.ts, line 7`)
    const root = parseGfm(body)
    expect(root.children.map((child) => child.type)).toEqual(['table', 'paragraph', 'paragraph', 'list'])
  })

  it('says nothing when nothing was redacted, or the classifier said nothing', () => {
    const rows = [aRow()]
    expect(renderReviewBody(rows, 'approve', { redacted: 0, places: 0, findings: [] })).toBe(
      renderReviewTable(rows, 'approve'),
    )
    expect(renderReviewBody(rows, 'approve', null)).toBe(renderReviewTable(rows, 'approve'))
  })

  it('comes before the retry hint in a no-verdict body, and counts the places past the list', () => {
    const body = renderNoVerdictBody('no answer', null, { ...redaction, places: 60 })
    expect(body.endsWith(`and 57 more places\n\n${RETRY_HINT}`)).toBe(true)
    expect(body).toContain('; of the first 3 places: 1 aws-access-token, 1 github-pat.')
  })
})
