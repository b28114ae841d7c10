/**
 * What a found value is, read by plain code where a pattern can't say it
 * (docs/decisions.md, "Redaction"): a placeholder or a reference rather
 * than a password, a digest or an id rather than a key, a name in code
 * rather than a token. core/redaction/filters.ts asks these of each secret
 * the rules find. Pure, and linear in the value's length: what may read a
 * long value (a catch-all's secret has no upper bound) is plain code, and
 * a regex here reads only a value or a name some rule's pattern bounds
 * (200 to 512 characters), none of them able to backtrack more than once
 * over a character (test/core/redaction/redact-engine.test.ts watches them run).
 */

/** Placeholder words, compared with the value lower-cased and stripped to its letters and digits. */
const PLACEHOLDER_WORDS: ReadonlySet<string> = new Set([
  'admin',
  'bar',
  'changeit',
  'changeme',
  'default',
  'dummy',
  'empty',
  'example',
  'fake',
  'false',
  'foo',
  'foobar',
  'guest',
  'hidden',
  'mypassword',
  'mysecret',
  'myusername',
  'nil',
  'none',
  'null',
  'pass',
  'passphrase',
  'passw0rd',
  'passwd',
  'password',
  'placeholder',
  'pwd',
  'redacted',
  'root',
  'sample',
  'secret',
  'test',
  'testing',
  'todo',
  'true',
  'undefined',
  'user',
  'username',
])

/** A placeholder's first word, then a separator: `your_password_here`, `dummy-pass`, `example.secret`, `my password`. */
const PLACEHOLDER_START = /^(?:your|enter|insert|replace|change|example|sample|dummy|fake|my|some|put)[-_. ]/i

function squeezed(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '')
}

/** The usual letter-for-symbol spellings read back as letters, so `Pa$$w0rd` and `P@ssw0rd` read as `password`. */
function unLeet(text: string): string {
  return text.replace(/[$5]/g, 's').replace(/[@4]/g, 'a').replace(/0/g, 'o').replace(/[1!]/g, 'i').replace(/3/g, 'e')
}

/**
 * Whether the text is placeholder words alone, with or without separators
 * (`pass#pass`, `Pa$$w0rd`, `admin admin`), or a word run together from
 * `my`, `your`, `some` or `super` and placeholder words (`mysecretpassword`,
 * the Postgres image's documented example).
 */
function isPlaceholderWords(text: string): boolean {
  const words = text.toLowerCase().split(/[^a-z0-9$@!]+/)
  return (
    words.some((word) => word !== '') &&
    words.every((word) => {
      const bare = squeezed(unLeet(word))
      return bare === '' || PLACEHOLDER_WORDS.has(bare) || isRunTogether(bare)
    })
  )
}

const FILLERS = ['my', 'your', 'some', 'super']

/** `my` + placeholder words run together, by trying each split (words of 40 letters at most). */
function isRunTogether(word: string): boolean {
  const filler = FILLERS.find((start) => word.startsWith(start))
  if (filler === undefined || word.length > 40) return false
  // reachable[i]: word[filler.length, i) splits into placeholder words.
  const reachable = new Array<boolean>(word.length + 1).fill(false)
  reachable[filler.length] = true
  for (let i = filler.length; i < word.length; i++) {
    if (!reachable[i]) continue
    for (let j = i + 3; j <= word.length; j++) if (PLACEHOLDER_WORDS.has(word.slice(i, j))) reachable[j] = true
  }
  return reachable[word.length] === true && word.length > filler.length
}

/** A reference or a template that is the whole value: `${DB_PASSWORD}`, `{{ vault_pw }}`, `$PASS`, `<password>`, `[secret]`, `%s`, YAML's `!vault`. */
const WHOLE_REFERENCE =
  /^(?:\$\{[^}]*\}|\{\{[^}]*\}\}|\$\([^)]*\)|<%.*%>|%\([A-Za-z_]\w*\)[a-z]|#\{[^}]*\}|\$[A-Za-z_]\w*(?::[A-Za-z_]\w*)?|%[A-Za-z_]+%|<[^>]*>|\[[^\]]*\]|\{[^}]*\}|%[-+ #0]?[a-z]|:[a-z_]+|![a-z_]+)$/

/** A template with a name in it, inside a value: `postgres-${ENV}`, `<%= ENV["PW"] %>`, `%(password)s`; `{{ … }}` below. */
const INNER_TEMPLATE = /\$\{[A-Za-z_][\w.:-]*\}|<%=?[^%]*%>|%\([A-Za-z_]\w*\)[sd]/

/**
 * Whether the text holds `{{`, blanks, a name and no `}` up to `}}` (`pw-{{ env }}-1`): as
 * /\{\{[ \t]*[A-Za-z_][^}]*\}\}/ finds, but a piece between two `}` at a time, so that many
 * `{{` with no `}}` after them are not each read to the end.
 */
export function hasMustache(text: string): boolean {
  let from = 0
  for (let close = text.indexOf('}'); close !== -1; close = text.indexOf('}', from)) {
    if (text[close + 1] === '}' && /\{\{[ \t]*[A-Za-z_]/.test(text.slice(from, close))) return true
    from = close + 1
  }
  return false
}

/**
 * A value (its quotes aside) that stands for a password rather than being
 * one: shorter than four characters, one character repeated (`xxxx`,
 * `****`), a reference or a template (the whole value, or with `inner` a
 * named template inside it), a path, placeholder words alone (`password`,
 * `changeme`, `pass#pass`, `Pa$$w0rd`), a phrase starting with a
 * placeholder's first word (`your-password-here`, `dummy_pass`,
 * `yourPassword`), or the same as one of `names` (`IRC_PASS=irc_pass`,
 * `guest:guest`). `inner` is off for keys whose alphabet may make a
 * template's shape by chance.
 */
export function isPlaceholder(value: string, names: readonly string[] = [], inner = true): boolean {
  const text = unquoted(value.trim())
  if (text.length < 4) return true
  let same = true
  for (let i = 1; i < text.length && same; i++) same = text[i] === text[0]
  if (same) return true
  if (WHOLE_REFERENCE.test(text) || (inner && (INNER_TEMPLATE.test(text) || hasMustache(text)))) return true
  if (/^(?:\.{0,2}\/|~\/)/.test(text)) return true
  const bare = squeezed(text)
  if (isPlaceholderWords(text) || PLACEHOLDER_START.test(text) || /^your[A-Z]/.test(text)) return true
  return names.some((name) => name !== '' && squeezed(name) === bare)
}

/** The value without the quotes at its ends (`"pw"`, `'pw'`, `` `pw` ``, and runs of them). */
export function unquoted(value: string): string {
  const quote = (at: number) => {
    const c = value.charCodeAt(at)
    return c === 0x22 || c === 0x27 || c === 0x60
  }
  let start = 0
  let end = value.length
  while (start < end && quote(start)) start += 1
  while (end > start && quote(end - 1)) end -= 1
  return value.slice(start, end)
}

/** Letters and the separators of names and paths only (`userPassword`, `auth/weak-password`, `Auth\\PasswordController`): a word, a label or a name in code. */
export function isWordlike(value: string): boolean {
  return /^[A-Za-z_.\-/:\\|]+$/.test(value)
}

/**
 * An expression in code: a name, maybe a variable's (`$pass`, `@pw`),
 * maybe a member's (`args.pw2`, `cfg.Password`, `$this->password`,
 * `Config::get`), maybe cut where a call or a member starts (`$this-`).
 */
export function isCodeName(value: string): boolean {
  // As /^[$@]?[A-Za-z_][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)*(?:-|::?)?$/, in one pass: the value may be long.
  let i = value[0] === '$' || value[0] === '@' ? 1 : 0
  if (!isNameStart(value.charCodeAt(i), false)) return false
  for (;;) {
    i += 1
    while (i < value.length && isNamePart(value.charCodeAt(i))) i += 1
    const rest = value.length - i
    const separator = value[i] === '.' ? 1 : value.startsWith('->', i) || value.startsWith('::', i) ? 2 : 0
    if (separator > 0 && isNameStart(value.charCodeAt(i + separator), true)) i += separator
    else return rest === 0 || value.slice(i) === '-' || value.slice(i) === ':' || value.slice(i) === '::'
  }
}

/** A-Z a-z _ (and `$` with `dollar`). */
function isNameStart(c: number, dollar: boolean): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || (dollar && c === 0x24)
}

/** `\w` or `$`. */
function isNamePart(c: number): boolean {
  return isNameStart(c, true) || (c >= 0x30 && c <= 0x39)
}

const CODE_EXTENSIONS: ReadonlySet<string> = new Set(
  'c cc cjs cpp cs cts dart ex exs go groovy h hpp hs java js jsx kt kts lua m mjs ml mts nix php pl py rb rs scala svelte swift ts tsx vue'.split(
    ' ',
  ),
)

/** A source file, where an unquoted value after `=` is an expression, not a literal. */
export function isCodePath(path: string): boolean {
  const dot = path.lastIndexOf('.')
  return dot > path.lastIndexOf('/') && CODE_EXTENSIONS.has(path.slice(dot + 1).toLowerCase())
}

/** The name a value is given to: the last run of name characters before the value, past its quotes and operator. */
export function nameBefore(match: string, at: number): string {
  let end = at
  while (end > 0 && /[\s'"`=:>,|?(]/.test(match[end - 1] as string)) end -= 1
  let start = end
  while (start > 0 && /[\w.$-]/.test(match[start - 1] as string)) start -= 1
  return match.slice(start, end)
}

/** A name's words, lower case: `HEROKU_API_KEY` → heroku api key, `oauth2AccessToken` → oauth2 access token, `APIKey` → api key. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
}

/** Words that make a name a credential's on their own. */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set(
  'accesskey accesstoken apikey auth authkey authorization authtoken bearer credential credentials creds oauth pass passphrase passwd password privatekey pwd secret secretkey secrets token tokens'.split(
    ' ',
  ),
)

/** Words that make `… key` a credential's name (`api key`, `signing key`); `cache key` or `object key` are not. */
const KEY_QUALIFIERS: ReadonlySet<string> = new Set(
  'access account api app auth client encrypt encryption hmac license master private root service session shared sign signing'.split(
    ' ',
  ),
)

/** Words that make a name a digest's or a nonce's, whatever its value (`TOKEN_HASH`, `password_sha256_hex`, `Sec-WebSocket-Key`). */
const DIGEST_WORDS: ReadonlySet<string> = new Set(
  'checksum crc digest etag fingerprint hash hashed hashes integrity nonce websocket'.split(' '),
)

/** Words that make a name an id's, when its value is a UUID or hex (`client_id`, `cache_key`, `commit`). */
const ID_WORDS: ReadonlySet<string> = new Set(
  'audience cache commit guid id ids rev revision sum uuid version'.split(' '),
)

function isCredentialName(words: readonly string[]): boolean {
  return words.some(
    (word, i) => CREDENTIAL_WORDS.has(word) || (word === 'key' && i > 0 && KEY_QUALIFIERS.has(words[i - 1] as string)),
  )
}

function isDigestName(words: readonly string[]): boolean {
  return words.some((word) => DIGEST_WORDS.has(word) || /^(?:sha|md)\d*(?:sum)?$/.test(word))
}

function isIdName(words: readonly string[]): boolean {
  return isDigestName(words) || words.some((word) => ID_WORDS.has(word))
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** 16 or more hex digits, of one case (`/^(?:[0-9a-f]{16,}|[0-9A-F]{16,})$/`, in one pass). */
function isHex(value: string): boolean {
  if (value.length < 16) return false
  let lower = true
  let upper = true
  for (let i = 0; i < value.length && (lower || upper); i++) {
    const c = value.charCodeAt(i)
    const digit = c >= 0x30 && c <= 0x39
    lower &&= digit || (c >= 0x61 && c <= 0x66)
    upper &&= digit || (c >= 0x41 && c <= 0x46)
  }
  return lower || upper
}

/**
 * Whether a value the catch-all rule took beside a key-like name is a
 * secret, by the name and the value's shape. Under a name that says digest
 * or nonce (`TOKEN_HASH`, `password_sha256_hex`, `Sec-WebSocket-Key`)
 * nothing is. A UUID or a hex string is not under a name that says id
 * (`clientId`, `cache_key`); one of a SHA-1 or SHA-256 digest's length (40
 * or 64 hex digits), or a UUID, is only under a name that calls it a
 * credential (`oauth_token`, `client_secret`, `api_key`). A dotted name
 * (`config.stripe.apiKeyV2`) is a reference, not a value.
 */
export function isGenericSecret(value: string, name: string): boolean {
  const words = nameWords(name)
  if (isDigestName(words)) return false
  const hex = isHex(value)
  const uuid = value.length === 36 && UUID.test(value)
  if ((hex || uuid) && isIdName(words)) return false
  if (uuid || (hex && (value.length === 40 || value.length === 64))) return isCredentialName(words)
  return !isDottedName(value)
}

/**
 * A reference by name (`process.env.API_TOKEN_2`, `settings.auth.tokenV2`):
 * two or more parts joined by dots, each of letters and `_` with at most
 * three digits at its end. Random tokens hold no dot, or digits inside.
 * (A name with no dot in a quoted string is not told from a token: without
 * a dictionary, a camel-case name and a random mixed-case token look alike.)
 */
export function isDottedName(value: string): boolean {
  // As /^[A-Za-z_$][A-Za-z_$]*[0-9]{0,3}(?:\.[A-Za-z_$][A-Za-z_$]*[0-9]{0,3})+$/, part by part: the value may be long.
  const parts = value.split('.')
  return (
    parts.length >= 2 &&
    parts.every((part) => {
      let i = 0
      while (i < part.length && isNameStart(part.charCodeAt(i), true)) i += 1
      const digits = part.length - i
      if (i === 0 || digits > 3) return false
      for (; i < part.length; i++) if (part.charCodeAt(i) < 0x30 || part.charCodeAt(i) > 0x39) return false
      return true
    })
  )
}
