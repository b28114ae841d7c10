/**
 * Our own rules (issue 27), for secrets that gitleaks' rules and the three
 * taken from other sets (extra-rules.ts) miss: each was found missing in a
 * repository of planted real-world leaks (test/fixtures/redaction/). What
 * a pattern can't say (a placeholder, a key body, a name in code) is said
 * by plain code in filters.ts, so every pattern here is one a linear-time
 * (RE2) engine runs as JavaScript does: no lookaround, no backreference, no
 * named group, no possessive or atomic group, no unbounded quantifier
 * inside another. docs/decisions.md ("Redaction") lists the kinds.
 */
import type { VendoredRule } from './rule-types.ts'

type Options = { secretGroup?: number; path?: string; multiline?: boolean }

function rule(id: string, source: string, keywords: string[], options: Options = {}): VendoredRule {
  return {
    id,
    regex: { source, flags: '' },
    secretGroup: options.secretGroup ?? 0,
    entropy: 0,
    keywords,
    path: options.path === undefined ? null : { source: options.path, flags: '' },
    multiline: options.multiline ?? false,
    allowlists: [],
  }
}

/** A name's last word spelling a password (`PASS`, `password`, `Passphrase`, `pwd`), standing alone or after a separator. */
const PASSWORD_WORD = '(?:[Pp]ass(?:word|wd|phrase)?|PASS(?:WORD|WD|PHRASE)?|[Pp]wd|PWD)'

/**
 * A key's name that ends in a password word: after a separator or at the
 * start (`DB_PASSWORD`, `"pass"`, `db.password`), after a lower-case
 * letter in camel case (`userPassword`, `sshPassphrase`), or run together
 * whole (`dbpasswd`, `DBPASSWORD`). `bypass`, `compass` and `passport` are
 * none of these.
 */
const PASSWORD_NAME = `(?:(?:^|[^A-Za-z])${PASSWORD_WORD}|[a-z0-9](?:Pass(?:word|wd|phrase)?|Pwd)|[A-Za-z](?:passw(?:or)?d|PASSW(?:OR)?D))`

/** A quoted value. */
const QUOTED_VALUE = String.raw`"([^"\r\n]{1,200})"|'([^'\r\n]{1,200})'|\x60([^\x60\r\n]{1,200})\x60`

/**
 * `=`, `:`, `=>` or `:=` (the name maybe quoted), then a quoted value or an
 * unquoted one up to a space, a quote, a comment or a bracket; or a quoted
 * name, a comma and a quoted value (`define('DB_PASSWORD', '…')`).
 */
const ASSIGNED_VALUE = String.raw`(?:["']?[ \t]*(?:=>|:=|=|:)[ \t]*(?:${QUOTED_VALUE}|([^ \t\r\n'"\x60#;,<>(){}\[\]=][^ \t\r\n'"\x60#;,<>(){}\[\]]{0,199}))|["'][ \t]*,[ \t]*(?:${QUOTED_VALUE}))`

/** An XML element named for a password: `<password>`, `<db:password>`, `<adminPassword>`. */
const PASSWORD_ELEMENT = String.raw`<(?:[A-Za-z0-9_.:-]{0,40}[_.:-])?${PASSWORD_WORD}>([^<\r\n]{1,200})</|<[A-Za-z0-9_.:-]{0,40}[a-z0-9](?:Pass(?:word|wd|phrase)?|Pwd)>([^<\r\n]{1,200})</`

/** Where the rules below that read a setting's name start: at the line's start or after a character that is no part of a name. */
const NAME_START = '(?:^|[^A-Za-z0-9_])'

export const OWN_RULES: readonly VendoredRule[] = [
  // PuTTY's .ppk: the private lines, between `Private-Lines: N` and `Private-MAC:` (filters.ts checks they are
  // base64), line breaks and diff markers in the class, which holds no `:`, so a run stops at the next field; or,
  // pasted onto one line (a title), base64 words between spaces.
  rule(
    'putty-private-key',
    String.raw`Private-Lines:[ \t]*[0-9]{1,4}(?:[ \t]*\r?\n([-+ A-Za-z0-9/=\r\n]+)\r?\n[-+ ]?|[ \t]+([A-Za-z0-9+/= ]+)[ \t]+)Private-(?:MAC|Hash):`,
    ['private-lines'],
    { multiline: true },
  ),
  // Django's and Flask's SECRET_KEY (Flask's `app.secret_key` too), quoted, or unquoted in an .env file.
  rule(
    'django-secret-key',
    String.raw`(?:${NAME_START}(?:DJANGO_|FLASK_)?SECRET_KEY|\.secret_key)["']?\]?[ \t]*[=:][ \t]*[rRbBuU]?(?:'([^'\r\n]{20,200})'|"([^"\r\n]{20,200})"|([^ \t\r\n'"()]{30,200}))`,
    ['secret_key'],
  ),
  // Laravel's APP_KEY (`base64:` and 32 bytes), in .env or config/app.php.
  rule(
    'laravel-app-key',
    String.raw`${NAME_START}APP_KEY["']?[ \t]*(?:[=:]|,)[ \t]*["']?base64:([A-Za-z0-9+/]{32,88}={0,2})`,
    ['app_key'],
  ),
  // Rails' config/master.key (and config/credentials/<env>.key): the whole file is 32 hex digits.
  rule('rails-master-key', String.raw`(?:^|\n)[-+ ]?([0-9a-f]{32})[ \t]*\r?(?:\n|$)`, ['.key'], {
    path: String.raw`(?:^|/)config/(?:master|credentials/[A-Za-z0-9_-]{1,64})\.key$`,
    multiline: true,
  }),
  // Rails' secret_key_base (secrets.yml, .env).
  rule(
    'rails-secret-key-base',
    String.raw`(?:secret_key_base|SECRET_KEY_BASE)["']?[ \t]*[=:][ \t]*["']?([0-9a-fA-F]{64,256})`,
    ['secret_key_base'],
  ),
  // WordPress' keys and salts: define('AUTH_KEY', '…') in wp-config.php, or AUTH_KEY='…' in a Bedrock .env.
  rule(
    'wordpress-auth-key',
    String.raw`${NAME_START}(?:SECURE_AUTH|LOGGED_IN|AUTH|NONCE)_(?:KEY|SALT)["']?[ \t]*[,=][ \t]*(?:'([^'\r\n]{8,256})'|"([^"\r\n]{8,256})"|([^ \t\r\n'"]{16,256}))`,
    ['auth_key', 'auth_salt', 'logged_in_key', 'logged_in_salt', 'nonce_key', 'nonce_salt'],
  ),
  // .npmrc's _auth, _authToken and _password (a registry's, `//host/:_authToken=`, or at a line's start);
  // .yarnrc.yml's npmAuthToken and npmAuthIdent.
  rule(
    'npmrc-auth',
    String.raw`(?:/:|^[-+ ]?[ \t]*)(?:_authToken|_auth|_password)[ \t]*=[ \t]*["']?([^ \t\r\n'"()]{4,512})|(?:npmAuthToken|npmAuthIdent)["']?[ \t]*:[ \t]*["']?([^ \t\r\n'"()]{4,512})`,
    ['_auth', '_password', 'npmauth'],
  ),
  // Password hashes: bcrypt, md5crypt / sha256crypt / sha512crypt / Apache's apr1, yescrypt, Argon2, Django's PBKDF2.
  // The secret is the salt and hash; the scheme's `$2y$12$` stays, so the reader sees which.
  rule(
    'password-hash',
    [
      String.raw`\$2[abxy]?\$[0-9]{2}\$([./A-Za-z0-9]{53})`,
      String.raw`\$(?:1|5|6|apr1)\$(?:rounds=[0-9]{1,9}\$)?([./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86})`,
      String.raw`\$y\$[./A-Za-z0-9]{1,30}\$([./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{43})`,
      String.raw`\$argon2(?:id|i|d)\$v=[0-9]{1,3}\$m=[0-9]{1,10},t=[0-9]{1,10},p=[0-9]{1,3}\$([A-Za-z0-9+/]{8,128}\$[A-Za-z0-9+/]{16,256})`,
      String.raw`pbkdf2_sha(?:1|256|512)\$[0-9]{1,7}\$([A-Za-z0-9./+]{1,64}\$[A-Za-z0-9./+=]{20,128})`,
    ].join('|'),
    ['$2a$', '$2b$', '$2x$', '$2y$', '$2$', '$1$', '$5$', '$6$', '$apr1$', '$y$', '$argon2', 'pbkdf2_sha'],
  ),
  // FileZilla's sitemanager.xml and recentservers.xml: <Pass> in plain text or base64.
  rule('filezilla-password', String.raw`<Pass(?:[ \t]+encoding=["']base64["'])?[ \t]*>([^<\r\n]{1,512})</Pass>`, [
    '<pass',
  ]),
  // JetBrains IDEs' .idea/*.xml: a password kept "encoded", each character XOR 0xdfaa as four hex digits.
  rule('jetbrains-password', '(?:^|[^A-Za-z])password="((?:df[0-9a-f]{2}){2,256})"', ['password="']),
  // .netrc's one-line form: machine <host> [login <user>] password <password>.
  rule(
    'netrc-password',
    String.raw`${NAME_START}machine[ \t]+[^ \t\r\n]{1,256}(?:[ \t]+login[ \t]+[^ \t\r\n]{1,256})?[ \t]+password[ \t]+([^ \t\r\n'"\\]{1,256})`,
    ['machine'],
  ),
  // A password given to a password-named key in .env, shell, INI, YAML, JSON, TOML, code or XML; a catch-all, last.
  rule('password-assignment', `${PASSWORD_NAME}${ASSIGNED_VALUE}|${PASSWORD_ELEMENT}`, ['pass', 'pwd']),
]
