import { redactionHeadline, redactionPlaceLines } from '../redaction/redaction-report.ts'
import { ERROR_KIND_LABEL, rowBlocks } from '../run/aggregate.ts'
import type { Overall, RedactionSummary, ReviewEvent, Row, Verdict } from '../wire/types.ts'

/**
 * The review the service account posts (docs/behaviour.md, "The review"). Every cell is
 * text from outside (a rule's name from the repo, a model's reason, an error
 * detail), so each goes through `escapeTableCell`.
 */

/**
 * Ends every no-verdict body: a COMMENT review leaves the request pending,
 * and re-requesting a pending reviewer sends no webhook (docs/decisions.md).
 */
export const RETRY_HINT =
  'To retry, remove review-classifier from the reviewers of this pull request, then request its review again.'

const ZERO_WIDTH_SPACE = '\u200B'

/** How each verdict reads in the table. */
export const VERDICT_LABEL = {
  match: 'match',
  'no-match': 'no match',
  'not-applicable': 'not applicable',
} as const satisfies Record<Verdict, string>

const OVERALL_LINE = {
  approve: '**Overall: approve.**',
  'request-changes': '**Overall: request changes.**',
  'no-verdict': '**Overall: no verdict.**',
} as const satisfies Record<Overall, string>

const REVIEW_EVENT = {
  approve: 'APPROVED',
  'request-changes': 'REQUEST_CHANGES',
  'no-verdict': 'COMMENT',
} as const satisfies Record<Overall, ReviewEvent>

/** The review table's columns, in order; the local `check` prints the same ones. */
export const REVIEW_TABLE_HEADER = [
  'classification',
  'polarity',
  'verdict',
  'certainty',
  'threshold',
  'counted',
  'reason',
] as const

/**
 * What gets escaped, in one pass so no escape is escaped again: where a
 * forge or a GFM renderer would start a mention (`@user`, also the `@` of an
 * email autolink), an issue or PR reference (`#12`, `owner/repo#12`, `!12`),
 * a link (`https://…`, `www.…`) or a short link (`[[…]]`), and every markup
 * character.
 *
 * Forgejo does more than GFM: after rendering, its markup post-processor
 * (`modules/markup/html.go`, `defaultProcessors`, v15.0.3) searches the
 * *rendered text* of every comment, where our character references are
 * plain characters again; the mention and reference search it runs on a
 * posted comment (`modules/references`, for notifications and
 * cross-references) uses the same patterns. Each processor, and what stops
 * it here:
 *
 * - `shortLinkProcessor` (`\[\[(.*?)\]\](\w*)`): `[[text|url]]` and
 *   `[[url]]` become a link, or an image for an image file name. Stopped by
 *   the zero-width space after each `[`: no two `[` are ever adjacent.
 * - `linkProcessor` (xurls on `https?://`), `pullReviewCommitPatternProcessor`,
 *   `fullHashPatternProcessor`, `comparePatternProcessor`,
 *   `filePreviewPatternProcessor` and `fullIssuePatternProcessor`: each
 *   needs the literal `https?://`, then a host matched by `[^\s/]+` or the
 *   forge's own URL. Go's `\s` is ASCII only, so a zero-width space after
 *   `://` would pass as part of the host, and a browser drops it from a
 *   host name; it goes between the `:` and the `//`, where no pattern
 *   allows anything.
 * - `mentionProcessor` (`@user`, `@org/team`), `issueIndexPatternProcessor`
 *   (`#12`, `!12`, `owner/repo#12`, "closes #12"),
 *   `commitCrossReferencePatternProcessor` (`owner/repo@sha`),
 *   `fediAddressProcessor` (`@user@host`, `!user@host`, linked to an outside
 *   site) and `emailAddressProcessor` (`a@b.co`): stopped by the zero-width
 *   space after every `@`, `#` and `!`, which none of them allows there.
 *
 * Harmless, and left alone:
 *
 * - `hashCurrentPatternProcessor` (7 to 64 hex digits): a link to that
 *   commit in the same repo, and only when the repo has it; the text can't
 *   choose where it goes.
 * - `issueIndexPatternProcessor` on a repo with an external tracker in the
 *   alphanumeric or regexp style (`ABC-12`): a link to the tracker URL the
 *   repo's admin configured, with the matched id in it; the text picks only
 *   the id (digits, in the alphanumeric style).
 * - `emojiShortCodeProcessor` (`:smile:`) and `emojiProcessor`: an emoji in
 *   a span, or a custom emoji's image from the forge's own assets; no link,
 *   no request to another host, nobody notified.
 *
 * A site admin may add URL schemes (`[markdown] CUSTOM_URL_SCHEMES`): one
 * with `://` is stopped like `https://`; one without (`magnet:`, `xmpp:`)
 * would be linked. The default adds none.
 */
const ESCAPED = /www\.|:\/\/|[@#!]|[\\`*_~[\]()<>&|$]/giu

const NAMED_REFERENCE: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
}

/**
 * Markup characters become character references rather than backslash
 * escapes: Forgejo's math extension reads `\(` … `\)` as inline math, and a
 * reference is never structure in CommonMark, whatever extension a renderer
 * adds. `&` is escaped too, so `&#124;` or `&#64;` in the text stays literal
 * instead of becoming `|` or `@`.
 *
 * Links and references get two layers. Markdown parsers find autolinks in
 * the source, and GFM's (micromark, cmark-gfm) accept U+200B inside a
 * domain, so the start itself is written as a reference (`www&#46;`,
 * `&#58;`, `&#64;`) and no source-level autolink can begin there. A forge
 * finds mentions, references and links later, in the rendered text, where
 * the references are plain characters again; there the zero-width space the
 * spec asks for breaks every pattern (Forgejo's, one by one, at
 * {@link ESCAPED}). `www.` gets one before its dot as well:
 * GFM's rule for it in rendered text (mdast-util-gfm) takes anything after
 * the dot as the rest of the link.
 */
function escapeToken(token: string): string {
  if (token.toLowerCase() === 'www.') {
    return `${token.slice(0, 3)}${ZERO_WIDTH_SPACE}&#46;${ZERO_WIDTH_SPACE}`
  }
  if (token === '://') return `&#58;${ZERO_WIDTH_SPACE}//`
  if (token === '@' || token === '#' || token === '!' || token === '[') {
    return `${numericReference(token)}${ZERO_WIDTH_SPACE}`
  }
  return NAMED_REFERENCE[token] ?? numericReference(token)
}

function numericReference(char: string): string {
  return `&#${char.codePointAt(0)};`
}

/**
 * Whitespace that would end the line or the cell, plus U+0085 (NEL), which
 * `\s` leaves out. U+FEFF is in `\s` but is invisible, so it is dropped below
 * rather than turned into a space.
 */
const SPACE_LIKE = /^[\s\u0085]$/u

/**
 * Control and format characters: invisible, and able to reorder what the
 * reader sees (bidi overrides and isolates) or hide text from them (tag
 * characters). The joiners U+200C and U+200D stay: scripts and emoji
 * sequences need them, and they join nothing our rules look for.
 */
const INVISIBLE_OR_SPACE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s]/gu
const JOINERS = new Set(['\u200C', '\u200D'])

/**
 * Text as one plain line: every line break and tab becomes a space, runs
 * collapse, the ends are trimmed, and invisible control, format and bidi
 * characters are removed (a terminal's escape sequences with them).
 */
export function flattenCellText(text: string): string {
  return text
    .toWellFormed()
    .replace(INVISIBLE_OR_SPACE, (char) => {
      if (char !== '\uFEFF' && SPACE_LIKE.test(char)) return ' '
      return JOINERS.has(char) ? char : ''
    })
    .replace(/ {2,}/gu, ' ')
    .trim()
}

/**
 * Whether text shows nothing once flattened: it is empty, or holds only
 * the two joiners, the one invisible thing {@link flattenCellText} keeps
 * (and spaces between them). An error detail like that would leave a
 * dangling colon after its label.
 */
export function showsNothing(text: string): boolean {
  return [...flattenCellText(text)].every((char) => char === ' ' || JOINERS.has(char))
}

/**
 * Makes text safe for one cell of a GFM table, and for any other inline
 * spot in a review body: one line ({@link flattenCellText}), markup
 * characters written as references, and a zero-width space after each
 * mention, reference and link start, so the text can't break the table,
 * embed markup or HTML, mention anyone, reference an issue or PR, or carry
 * a link.
 */
export function escapeTableCell(text: string): string {
  return flattenCellText(text).replace(ESCAPED, escapeToken)
}

/** What heads the list of advisory failures under the table. */
export const ADVISORY_FAILURES_HEADING = "**Advisory rules that fail** (advisory rules don't block):"

/**
 * The result table, then the advisory rules that fail, if any (they are
 * counted failures that didn't request changes, and a reader of the overall
 * line should not have to find them in the table), then the overall line.
 */
export function renderReviewTable(rows: readonly Row[], overall: Overall): string {
  const lines = [
    tableLine(REVIEW_TABLE_HEADER),
    tableLine(REVIEW_TABLE_HEADER.map(() => '---')),
    ...rows.map((row) => tableLine(reviewRowCells(row).map(escapeTableCell))),
  ]
  const advisory = rows.filter((row) => row.counted && row.fails && !rowBlocks(row))
  const list =
    advisory.length === 0
      ? []
      : [
          [
            ADVISORY_FAILURES_HEADING,
            ...advisory.map((row) => `- ${escapeTableCell(row.name)}: ${escapeTableCell(row.reason ?? '')}`),
          ].join('\n'),
        ]
  return [lines.join('\n'), ...list, OVERALL_LINE[overall]].join('\n\n')
}

/**
 * The body of an approving or change-requesting review: the table, then what
 * was redacted, if anything (a PR that adds a secret is worth knowing about
 * even when every rule passes).
 */
export function renderReviewBody(
  rows: readonly Row[],
  overall: 'approve' | 'request-changes',
  redaction: RedactionSummary | null = null,
): string {
  return [renderReviewTable(rows, overall), ...renderRedaction(redaction)].join('\n\n')
}

/**
 * The body of a no-verdict COMMENT review: the reason, the table when the
 * classifier answered, what was redacted, and always the retry hint last.
 */
export function renderNoVerdictBody(
  reason: string,
  table: { rows: readonly Row[]; overall: Overall } | null,
  redaction: RedactionSummary | null = null,
  /** Markdown already escaped (the rules-change report), shown below the table. */
  below: string | null = null,
): string {
  const parts = [`**No verdict:** ${escapeTableCell(reason)}`]
  if (table !== null) parts.push(renderReviewTable(table.rows, table.overall))
  if (table !== null && below !== null) parts.push(below)
  parts.push(...renderRedaction(redaction), RETRY_HINT)
  return parts.join('\n\n')
}

/** The redaction's paragraph and its list of places, every text escaped like a cell; nothing when none was redacted. */
function renderRedaction(redaction: RedactionSummary | null): string[] {
  const headline = redaction === null ? null : redactionHeadline(redaction)
  if (redaction === null || headline === null) return []
  const places = redactionPlaceLines(redaction).map((line) => `- ${escapeTableCell(line)}`)
  return [`**Secrets redacted:** ${escapeTableCell(headline)}`, places.join('\n')]
}

/** The forge review event that posts each overall verdict. */
export function reviewEvent(overall: Overall): ReviewEvent {
  return REVIEW_EVENT[overall]
}

function tableLine(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`
}

/**
 * The cells of one row, unescaped, in {@link REVIEW_TABLE_HEADER}'s order.
 * An error wins over an answer, as in aggregation.
 */
export function reviewRowCells(row: Row): string[] {
  const fixed = [row.name, row.mode === 'advisory' ? `${row.polarity}, advisory` : row.polarity]
  const threshold = String(row.threshold)
  if (row.error !== null || row.verdict === null) {
    const label = row.error === null ? 'runtime error' : ERROR_KIND_LABEL[row.error.kind]
    const detail = row.error?.detail ?? ''
    // A detail that shows nothing would leave a dangling colon.
    const reason = showsNothing(detail) ? `no answer (${label})` : `no answer (${label}): ${detail}`
    return [...fixed, '—', '—', threshold, 'no', reason]
  }
  const counted =
    row.waived_by !== undefined
      ? `waived by @${row.waived_by}`
      : row.counted
        ? row.fails
          ? rowBlocks(row)
            ? 'yes ❌'
            : 'yes 🟡 advisory'
          : 'yes ✅'
        : 'no'
  return [...fixed, VERDICT_LABEL[row.verdict], String(row.certainty ?? '—'), threshold, counted, row.reason ?? '']
}
