/**
 * What a found value is, read by plain code where a pattern can't say it
 * (docs/decisions.md, "Redaction"): a digest or an id rather than a key, a
 * name in code rather than a token. core/redaction/filters.ts asks these of each secret
 * the rules find. Pure, and linear in the value's length.
 */

/**
 * An expression in code: a name, maybe a variable's (`$pass`, `@pw`),
 * maybe a member's (`args.pw2`, `cfg.Password`, `$this->password`,
 * `Config::get`), maybe cut where a call or a member starts (`$this-`).
 */
export function isCodeName(value: string): boolean {
  return /^[$@]?[A-Za-z_][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)*(?:-|::?)?$/.test(value)
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
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
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
const HEX = /^(?:[0-9a-f]{16,}|[0-9A-F]{16,})$/

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
  const hex = HEX.test(value)
  const uuid = UUID.test(value)
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
  return /^[A-Za-z_$][A-Za-z_$]*[0-9]{0,3}(?:\.[A-Za-z_$][A-Za-z_$]*[0-9]{0,3})+$/.test(value)
}
