/**
 * Redaction of the shared context's parts (title, commit messages, diff)
 * before the prompt is built from them, so no secret a PR holds goes to a
 * model provider (issue 19; docs/decisions.md, "Redaction").
 *
 * The rules are gitleaks' (vendored in core/redaction/gitleaks/) and a few
 * added for kinds it lacks (core/redaction/extra-rules.ts). Each secret
 * becomes `[redacted <kind> #n]`: the same value gets the same n in the
 * title, every commit and the diff, and n counts the distinct values in the
 * order they first appear (title, then the commits oldest first, then the
 * diff), so the same parts always give the same bytes (the prompt cache
 * keys on them). The findings say where each secret was, never its value.
 */
import { diffGitPaths, type FileSection, fileSections, headerPath } from '../diff/diff.ts'
import { KINDS } from './rules.ts'
import { type Fragment, findSecrets, type Span } from './scan.ts'

export type RedactionInput = {
  title: string
  /** The commit messages, oldest first. */
  commits: readonly string[]
  /** The diff as it goes into the context: object hashes stripped, lockfiles collapsed (`prepareDiffPieces`, joined). */
  diff: string
}

/**
 * Where a secret was. In the diff, `path` is the file's path (the new one;
 * the old one for a deleted file) and `line` the line's number in the file
 * the hunk header counts for it: the new file's for a `+` or context line
 * (`side: 'new'`), the old file's for a `-` line (`side: 'old'`); both are
 * null for a line outside any hunk (a file header), and `path` is null
 * before the first file. A secret over several lines is placed at its first.
 */
export type RedactionPlace =
  | { part: 'title' }
  /** 1 for the oldest commit, as the context numbers them. */
  | { part: 'commit'; commit: number }
  | { part: 'diff'; path: string | null; line: number | null; side: 'new' | 'old' | null }

/** One place a secret was taken out: its kind, its placeholder's number, where; never the value. */
export type RedactionFinding = { kind: string; n: number } & RedactionPlace

export type Redacted = {
  title: string
  commits: string[]
  /**
   * The diff as pieces that join to it, each but the last ending with a
   * line's `\n` (as `prepareDiffPieces` gives them, so `neutraliseFence` may
   * take them one by one); the diff as it was, whole, when it held no secret.
   */
  diff: string[]
  /** One per place, in the context's order (title, commits, diff). */
  findings: RedactionFinding[]
  /** How many distinct secrets were taken out: the highest n, 0 for none. */
  redacted: number
}

/**
 * How long a run's redaction may take (the classifier runs it on a worker
 * thread): far above what the benchmark measures for the largest context a
 * run may send (bench/results/redact.md), so only a PR built to be slow, or
 * a machine in trouble, meets it; the run then ends as no verdict.
 */
export const REDACTION_DEADLINE_MS = 10_000

/** For the system prompt: what a placeholder in the pull request's text is. */
export const REDACTION_NOTE =
  'Where the pull request held a secret (a key, token, password or private key), it was replaced before the pull request was sent to you by a placeholder of the form [redacted <kind> #<n>]: <kind> says what sort of secret it was, and <n> numbers the distinct secrets, the same number wherever the same secret appears. The secret itself is not available to you; judge the pull request as if it were there.'

export function placeholder(kind: string, n: number): string {
  return `[redacted ${kind} #${n}]`
}

/** The parts with every secret replaced by its placeholder, and where each was. */
export function redactSharedContext(input: RedactionInput): Redacted {
  const run = new Numbering()
  const findings: RedactionFinding[] = []
  const title = redactText(input.title, run, findings, { part: 'title' })
  const commits = input.commits.map((message, index) =>
    redactText(message, run, findings, { part: 'commit', commit: index + 1 }),
  )
  const diff = redactDiff(input.diff, run, findings)
  return { title, commits, diff, findings, redacted: run.size }
}

/** Numbers the distinct secret values of one run in the order they are first met; the first kind met stays the value's. */
class Numbering {
  private readonly byValue = new Map<string, { n: number; kind: string }>()

  get size(): number {
    return this.byValue.size
  }

  of(value: string, rule: number): { n: number; kind: string } {
    let entry = this.byValue.get(value)
    if (entry === undefined) {
      entry = { n: this.byValue.size + 1, kind: KINDS[rule] ?? 'secret' }
      this.byValue.set(value, entry)
    }
    return entry
  }
}

function redactText(text: string, run: Numbering, findings: RedactionFinding[], place: RedactionPlace): string {
  const spans = findSecrets(text, { start: 0, end: text.length, path: () => '', diff: false })
  if (spans.length === 0) return text
  const pieces: string[] = []
  let kept = 0
  for (const span of spans) {
    const { n, kind } = run.of(text.slice(span.start, span.end), span.rule)
    findings.push({ kind, n, ...place })
    pieces.push(text.slice(kept, span.start), replacement(text, span, placeholder(kind, n), false))
    kept = span.end
  }
  pieces.push(text.slice(kept))
  return pieces.join('')
}

function redactDiff(diff: string, run: Numbering, findings: RedactionFinding[]): string[] {
  const pieces: string[] = []
  let kept = 0
  const take = (fragment: Fragment, section: FileSection | null) => {
    const spans = findSecrets(diff, fragment)
    if (spans.length === 0) return
    const numbered = spans.map((span) => ({ span, ...run.of(diff.slice(span.start, span.end), span.rule) }))
    let path = section === null ? null : fragment.path()
    // A path can hold a secret too: the findings name it redacted.
    for (const { span, n, kind } of numbered) {
      if (path !== null) path = path.split(diff.slice(span.start, span.end)).join(placeholder(kind, n))
    }
    const lines = section === null ? null : hunkLines(diff, section, spans)
    numbered.forEach(({ kind, n }, index) => {
      const at = lines?.[index] ?? { line: null, side: null }
      findings.push({ kind, n, part: 'diff', path, line: at.line, side: at.side })
    })
    // Whole lines are rebuilt, so every piece but the last still ends with a line's `\n`.
    for (let i = 0; i < numbered.length; ) {
      const from = diff.lastIndexOf('\n', (numbered[i] as Numbered).span.start - 1) + 1
      let to = lineEndAt(diff, (numbered[i] as Numbered).span.end)
      let j = i + 1
      while (j < numbered.length && (numbered[j] as Numbered).span.start < to) {
        // Spans are sorted and apart, so a span ending by `to` ends on its line: no need to look for that line's end again.
        const { end } = (numbered[j] as Numbered).span
        if (end > to) to = lineEndAt(diff, end)
        j += 1
      }
      const rebuilt: string[] = []
      let at = from
      for (const { span, kind, n } of numbered.slice(i, j)) {
        rebuilt.push(diff.slice(at, span.start), replacement(diff, span, placeholder(kind, n), fragment.diff))
        at = span.end
      }
      rebuilt.push(diff.slice(at, to))
      pieces.push(diff.slice(kept, from), rebuilt.join(''))
      kept = to
      i = j
    }
  }
  let first = true
  for (const section of fileSections(diff)) {
    if (first && section.start > 0) take({ start: 0, end: section.start, path: () => '', diff: false }, null)
    first = false
    let path: string | undefined
    const pathOf = () => {
      path ??= sectionPath(diff, section) ?? ''
      return path
    }
    take({ start: section.start, end: section.end, path: pathOf, diff: true }, section)
  }
  if (first) take({ start: 0, end: diff.length, path: () => '', diff: false }, null)
  if (kept === 0) return [diff]
  pieces.push(diff.slice(kept))
  return pieces.filter((piece) => piece !== '')
}

type Numbered = { span: Span; n: number; kind: string }

/** The index after the `\n` ending the line that holds text[at - 1] (the span's last character), or the text's end. */
function lineEndAt(text: string, at: number): number {
  const newline = text.indexOf('\n', Math.max(0, at - 1))
  return newline === -1 ? text.length : newline + 1
}

/**
 * The placeholder, and the line breaks the secret spanned, so the lines
 * after it keep their numbers; in a diff each of those lines keeps its
 * first column too (the hunk's `+`, `-` or ` `), so the hunk stays whole.
 */
function replacement(text: string, span: Span, placeholderText: string, diff: boolean): string {
  let out = placeholderText
  // Only the span's own characters are read: a line may be a megabyte long and hold thousands of secrets.
  for (let at = span.start; at < span.end; at++) {
    if (text.charCodeAt(at) !== 0x0a) continue
    out += at > span.start && text.charCodeAt(at - 1) === 0x0d ? '\r\n' : '\n'
    const marker = text[at + 1]
    if (diff && at + 1 < span.end && (marker === '+' || marker === '-' || marker === ' ')) out += marker
  }
  return out
}

const HUNK_HEADER = /^@@+ -(\d+)(?:,\d+)? (?:-\d+(?:,\d+)? )*\+(\d+)(?:,\d+)? @@/

/** For each span (sorted), the line number and side of the line it starts on, by one walk over the section's lines. */
function hunkLines(
  diff: string,
  section: FileSection,
  spans: readonly Span[],
): { line: number | null; side: 'new' | 'old' | null }[] {
  const out: { line: number | null; side: 'new' | 'old' | null }[] = []
  let inHunk = false
  let oldLine = 0
  let newLine = 0
  let next = 0
  for (let start = section.start; start < section.end && next < spans.length; ) {
    const newline = diff.indexOf('\n', start)
    const end = newline === -1 || newline >= section.end ? section.end : newline + 1
    const marker = diff[start]
    const header = marker === '@' ? HUNK_HEADER.exec(diff.slice(start, end)) : null
    while (next < spans.length && (spans[next] as Span).start < end) {
      if (!inHunk || header !== null) out.push({ line: null, side: null })
      else if (marker === '-') out.push({ line: oldLine, side: 'old' })
      else out.push({ line: newLine, side: 'new' })
      next += 1
    }
    if (header !== null) {
      inHunk = true
      oldLine = Number(header[1])
      newLine = Number(header[2])
    } else if (inHunk) {
      if (marker === '+') newLine += 1
      else if (marker === '-') oldLine += 1
      else if (marker !== '\\') {
        oldLine += 1
        newLine += 1
      }
    }
    start = end
  }
  return out
}

/** The file a section is about: its new path, else (a deleted file) its old one; without git's `a/` `b/` prefix. */
function sectionPath(diff: string, section: FileSection): string | undefined {
  let plus: string | undefined
  let minus: string | undefined
  let renamed: string | undefined
  for (let start = section.firstEnd; start < section.end; ) {
    const newline = diff.indexOf('\n', start)
    const end = newline === -1 || newline >= section.end ? section.end : newline + 1
    const text = diff.slice(start, end).replace(/\r?\n$/, '')
    if (text.startsWith('@@')) break
    const path = headerPath(text)
    if (path !== undefined && path !== '/dev/null') {
      if (text.startsWith('+++ ')) plus = withoutSide(path)
      else if (text.startsWith('--- ')) minus = withoutSide(path)
      else if (text.startsWith('rename to ') || text.startsWith('copy to ')) renamed = path
    }
    start = end
  }
  const firstLine = diff.slice(section.start, section.firstEnd).replace(/\r?\n$/, '')
  const fromFirstLine = diffGitPaths(firstLine)?.[1]
  return plus ?? renamed ?? (fromFirstLine === undefined ? undefined : withoutSide(fromFirstLine)) ?? minus
}

function withoutSide(path: string): string {
  return path.replace(/^[a-z]\//, '')
}
