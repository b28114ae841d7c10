/**
 * The checks a rule's pattern can't make, run as plain code on each secret
 * it finds (core/redaction/scan.ts asks `isSecret`), and the cutting of a
 * secret over several lines of a diff into one piece per side
 * (`diffPieces`). docs/decisions.md ("Redaction") says why each is there.
 * Pure; kept out of the patterns so that every pattern stays one a
 * linear-time (RE2) engine runs as it is: no lookaround, no backreference.
 */
import { isCodeName, isCodePath, isGenericSecret, isPlaceholder, isWordlike, nameBefore, unquoted } from './values.ts'

/** One secret as a rule found it. */
export type Found = {
  /** The rule's kind. */
  kind: string
  /** The secret as the rule took it (its secret group, else the match). */
  value: string
  /** The rule's whole match, and where the secret starts in it. */
  match: string
  at: number
  /** A diff section: each line after the first starts with the hunk's marker. */
  diff: boolean
  /** The file's path; '' outside a diff. */
  path(): string
}

/** Whether what the rule found is a secret after all. Rules with no check here are taken at their word. */
export function isSecret(found: Found): boolean {
  // Our own placeholder (or its first word, where a value ends at a space) is no secret: redacting twice changes nothing.
  if (found.value === '[redacted' || (found.value.length <= 80 && /^\[redacted [a-z0-9-]+ #\d+\]$/.test(found.value)))
    return false
  const check = CHECKS[found.kind]
  return check === undefined || check(found)
}

/** The fewest base64 characters a private key's body has: a bare Ed25519 key in PKCS #8 has 64. */
const MIN_KEY_BODY = 40

const CHECKS: Readonly<Record<string, (found: Found) => boolean>> = {
  'private-key': (found) => isPrivateKeyBlock(found.value, found.diff),
  // The secret starts at its first line's start (in a diff, at its marker) or, pasted onto one line, after a space.
  'putty-private-key': (found) =>
    isKeyBody(keyBody(found.value, found.diff, found.diff && found.match[found.at - 1] === '\n')),
  // An unquoted name in source code is an expression (`const token = oauth2AccessToken`).
  'generic-api-key': (found) =>
    isGenericSecret(found.value, nameBefore(found.match, found.at)) && !isCodeExpression(found),
  'url-password': isUrlPassword,
  'password-assignment': isAssignedPassword,
  // Its alphabet holds `%(`, `$(` and `#`: only a whole-value template is one.
  'django-secret-key': (found) => !isPlaceholder(found.value, [], false) && !isCodeExpression(found),
  // WordPress' own placeholder, and names (`AUTH_KEY = 'Authorization'` in another app): its salts are 64 random characters.
  'wordpress-auth-key': (found) =>
    found.value.trim().toLowerCase() !== 'put your unique phrase here' && !isWordlike(found.value),
  // Its values are base64 or tokens, which may be letters alone; a name with separators is code (`_auth = auth_handler`).
  'npmrc-auth': (found) => !isPlaceholder(found.value) && !(isWordlike(found.value) && /[_.\-/:]/.test(found.value)),
  'netrc-password': isNetrcPassword,
  'filezilla-password': (found) => !isPlaceholder(found.value),
}

const PEM_BEGIN = /^-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/i
const PEM_END = /-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----$/i

/**
 * A private key block: its BEGIN line, a body of base64 (and PEM headers
 * such as `Proc-Type:`), and its END line. A BEGIN line with no such body
 * after it (a string in a scanner's rules, a template that fills the body
 * in at run time) is not a key, and the text after it is not the key's.
 */
function isPrivateKeyBlock(value: string, diff: boolean): boolean {
  const begin = PEM_BEGIN.exec(value)
  const end = PEM_END.exec(value)
  if (begin === null || end === null || end.index < begin[0].length) return false
  const body = value.slice(begin[0].length, end.index)
  // Another BEGIN line inside: the match started at a header that is not this key's (the rule looks again past it).
  return !/-----BEGIN/i.test(body) && isKeyBody(keyBody(body, diff, false))
}

/**
 * How much of a key's body is key: the characters in runs of base64 of 16
 * or more (`material`), the characters besides spaces that are not
 * (`other`), and the base64 characters in all (`base64`). A body may be a file's lines, a JSON string with literal
 * `\n`, strings joined by `+` in code, commented out, indented, each line
 * behind code (`const k = MIIE…`), or pasted onto one line; in a diff each
 * line but the first (unless `firstLineMarked`) starts with its marker,
 * and hunk headers and `\ No newline` lines are passed over.
 */
export function keyBody(body: string, diff: boolean, firstLineMarked: boolean): KeyBody {
  let material = 0
  let other = 0
  let shortRuns = 0
  const lines = body.split('\n')
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] as string
    if (diff && (i > 0 || firstLineMarked)) {
      if (line[0] === '@' || line[0] === '\\') continue
      line = line.slice(1)
    }
    // A header line (`Proc-Type: 4,ENCRYPTED`) is no key and no code; a long line is a key pasted whole, header and all.
    if (line.length < 100 && ARMOUR_HEADER.test(line.replace(/^[^A-Za-z]+/, ''))) continue
    const counts = lineCounts(line)
    material += counts.material
    shortRuns += counts.shortRuns
    other += counts.other
  }
  return { material, other: other + shortRuns, base64: material + shortRuns }
}

/**
 * One line of a key's body, counted in one pass of plain code (the line
 * may be a megabyte long, so no backtracking regex reads it): its runs of
 * base64 of 16 or more (`material`) and shorter (`shortRuns`), a run of
 * backslashes and the `n`, `r` or `t` after it (a literal `\n` in a string)
 * ending a run like any other separator, and its characters that are none
 * of base64 and white space (`other`, backslashes included).
 */
function lineCounts(line: string): { material: number; shortRuns: number; other: number } {
  let material = 0
  let shortRuns = 0
  let other = 0
  let run = 0
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : -1
    if (c !== -1 && isBase64(c)) {
      run += 1
      continue
    }
    if (run >= 16) material += run
    else shortRuns += run
    run = 0
    if (c === BACKSLASH) {
      while (line.charCodeAt(i + 1) === BACKSLASH) {
        other += 1
        i += 1
      }
      other += 1
      const next = line.charCodeAt(i + 1)
      if (next === 0x6e || next === 0x72 || next === 0x74) i += 1 // n r t
    } else if (c !== -1 && !isSpace(c)) other += 1
  }
  return { material, shortRuns, other }
}

const BACKSLASH = 0x5c

/** A-Z a-z 0-9 + / = */
function isBase64(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2f ||
    c === 0x3d
  )
}

/** What JavaScript's `\s` takes. */
function isSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

type KeyBody = { material: number; other: number; base64: number }

/** A PEM or PGP armour header line, which a key's body may start with. */
const ARMOUR_HEADER = /^(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset|MessageID):/

/** A key's body: at least 40 characters of base64 runs (a bare Ed25519 key has 64), and twice what else is there. */
export function isKeyBody(body: KeyBody): boolean {
  return body.material >= MIN_KEY_BODY && body.material >= 2 * body.other
}

const LOCAL_HOST =
  /^(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\]|host|hostname|example)$|\.(?:example|test|invalid|localhost)$|(?:^|\.)example\.(?:com|net|org)$/i

/**
 * A password in a URL, unless it is a placeholder (percent-decoded), the
 * user's own name (`guest:guest`), or for a server on this machine or on a
 * domain kept for examples (RFC 2606: `example.com`, `.test`).
 */
function isUrlPassword(found: Found): boolean {
  const user = found.match.slice(found.match.indexOf('://') + 3, found.at - 1)
  const host = found.match.slice(found.at + found.value.length + 1)
  return !isPlaceholder(percentDecoded(found.value), [user]) && !isPlaceholderHost(host)
}

/** A .netrc password, unless a placeholder, the login's own name, or for a host kept for examples or on this machine. */
function isNetrcPassword(found: Found): boolean {
  // The match is `machine`, blanks, the host, then maybe `login`, blanks and the login (read as words: the blanks are unbounded).
  const words = found.match
    .slice(found.match.indexOf('machine'))
    .split(/[ \t]/)
    .filter((word) => word !== '')
  const host = words[1] ?? ''
  const login = words[2] === 'login' ? (words[3] ?? '') : ''
  return !isPlaceholder(found.value, [login]) && !isPlaceholderHost(host)
}

/** A host (its port aside) on this machine or kept for examples. */
function isPlaceholderHost(host: string): boolean {
  const colon = host.lastIndexOf(':')
  return LOCAL_HOST.test(host.endsWith(']') || colon === -1 ? host : host.slice(0, colon))
}

function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value // Not valid percent-encoding: taken as written.
  }
}

/** The value stands right after a quote or an XML element's `>`: a literal, whatever the file. */
function isQuoted(found: Found): boolean {
  const before = found.match[found.at - 1]
  return before === '"' || before === "'" || before === '`' || before === '>'
}

/** An unquoted name in source code (`password = cfg.password`) is an expression, not a value. */
function isCodeExpression(found: Found): boolean {
  return !isQuoted(found) && isCodePath(found.path()) && isCodeName(found.value)
}

/**
 * A value given to a password-named key: a password unless it is a
 * placeholder (values.ts, `isPlaceholder`), shorter than six characters,
 * holds a space (a label, a sentence), is letters and name separators only
 * (a word, a translation, a class: passwords have a digit or a symbol), a
 * list of rules (`required|string|min:8`), a call (`getpass(`), a version
 * range, a password hash (the password-hash rule's to judge), or is an
 * unquoted name in source code (`password = cfg.password`,
 * `$pass = $this->getPassword()`).
 */
function isAssignedPassword(found: Found): boolean {
  // Percent-decoded, as in a form body (`password=secure%20password`), and its quotes aside.
  const value = unquoted(percentDecoded(found.value))
  if (isPlaceholder(value, [nameBefore(found.match, found.at)])) return false
  if (value.length < 6 || /\s/.test(value) || isWordlike(value) || /[A-Za-z_][0-9]*\(/.test(value)) return false
  if (/^[A-Za-z_]+(?::[^|]*)?(?:\|[A-Za-z_]+(?::[^|]*)?)+$/.test(value)) return false
  // A version range: a package named for passwords in a manifest or a lockfile (`"@inquirer/password": "^4.0.7"`).
  if (/^(?:npm:|workspace:)?[~^<>=v]*\d+(?:\.(?:\d+|x|\*))+(?:[-+][\w.]+)?$/.test(value)) return false
  if (/^(?:\$(?:2[abxy]?|1|5|6|apr1|y|argon2(?:id|i|d))\$|pbkdf2_sha)/.test(value)) return false
  return !isCodeExpression(found)
}

/**
 * A secret over several lines of a diff, cut into one piece per run of
 * lines with the same marker (context, removed, added), hunk headers and
 * `\ No newline` lines left out, so that no placeholder covers lines of
 * both sides: a key rotated in place becomes one placeholder for the old
 * body and one for the new. A key's pieces are then judged by side: the
 * removed ones only if the old file's key (context and removed lines) has
 * a body, the added ones likewise, and a piece that holds no more than a
 * BEGIN or END line is dropped.
 */
export function diffPieces(text: string, start: number, end: number, kind: string): { start: number; end: number }[] {
  // Most secrets are on one line: looked for within the span only, as the line may be a megabyte long.
  let within = start
  while (within < end && text.charCodeAt(within) !== 0x0a) within += 1
  if (within >= end - 1) return [{ start, end }]
  const pieces: Piece[] = []
  let pieceStart = start
  let marker = text[text.lastIndexOf('\n', start - 1) + 1] ?? ' '
  for (let line = text.indexOf('\n', start) + 1; line > 0 && line < end; line = text.indexOf('\n', line) + 1) {
    const next = text[line] ?? ' '
    const skipped = next === '@' || next === '\\'
    if (!skipped && next === marker) continue
    if (pieceStart !== -1) pieces.push({ start: pieceStart, end: line - (text[line - 2] === '\r' ? 2 : 1), marker })
    pieceStart = skipped ? -1 : Math.min(line + 1, end)
    marker = skipped ? '' : next
  }
  if (pieceStart !== -1) pieces.push({ start: pieceStart, end, marker })
  const kept = pieces.filter((piece) => piece.end > piece.start)
  if (kept.length < 2 || (kind !== 'private-key' && kind !== 'putty-private-key')) return kept.map(span)
  const bodies = kept.map((piece) => keyBody(unarmoured(text.slice(piece.start, piece.end)), true, false))
  const side = (markers: string) =>
    kept.reduce(
      (sum, piece, i) => {
        const body = bodies[i]
        if (body === undefined || !markers.includes(piece.marker)) return sum
        return { material: sum.material + body.material, other: sum.other + body.other, base64: 0 }
      },
      { material: 0, other: 0, base64: 0 },
    )
  const [oldKey, newKey] = [isKeyBody(side(' -')), isKeyBody(side(' +'))]
  return kept
    .filter((piece, i) => {
      const ofKey = piece.marker === '-' ? oldKey : piece.marker === '+' ? newKey : oldKey || newKey
      return ofKey && (bodies[i]?.base64 ?? 0) > 0
    })
    .map(span)
}

type Piece = { start: number; end: number; marker: string }

function span(piece: Piece): { start: number; end: number } {
  return { start: piece.start, end: piece.end }
}

const ARMOUR_LINE = /-----(?:BEGIN|END)[ A-Z0-9_-]{0,100}-----/gi

/** A piece of a key block without its BEGIN and END lines. */
function unarmoured(piece: string): string {
  return piece.replace(ARMOUR_LINE, '')
}
