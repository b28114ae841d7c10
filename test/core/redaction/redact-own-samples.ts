/**
 * True and false cases for our own rules (core/redaction/own-rules.ts) and
 * the URL rule we widened (extra-rules.ts), as gitleaks keeps its rules'
 * samples beside them: a true case must be found by its rule, a false case
 * must leave the text as it is. Run by test/core/redaction/redact-own-rules.test.ts
 * and by scripts/gitleaks-conformance.ts.
 *
 * The random parts are built at run time from a seeded generator, as in
 * redact-corpus.ts, so this file holds no value a scanner would flag.
 */
import { ALNUM, BASE64, DIGITS, HEX, LOWER, Random } from './redact-corpus.ts'

/** A sample: the text, and the file it is in ('' for a title or a commit message). */
export type OwnSample = { text: string; path: string }

export type OwnRuleSamples = { id: string; tps: OwnSample[]; fps: OwnSample[] }

const random = new Random(27)
const chars = (alphabet: string, length: number) => random.chars(alphabet, length)
/** A password with a digit and a symbol, as generated ones have. */
const password = () => `${chars(ALNUM, 9)}${chars(DIGITS, 2)}${random.pick(['!', '%', '^', '*'])}`
const base64Lines = (lines: number) => Array.from({ length: lines }, () => chars(BASE64, 64))
const sample = (text: string, path = ''): OwnSample => ({ text, path })

const hashSalt = () => chars(`./${ALNUM}`, 16)

export const OWN_RULE_SAMPLES: readonly OwnRuleSamples[] = [
  {
    id: 'putty-private-key',
    tps: [
      sample(
        [
          'PuTTY-User-Key-File-2: ssh-rsa',
          'Encryption: none',
          'Comment: deploy',
          'Public-Lines: 2',
          ...base64Lines(2),
          'Private-Lines: 4',
          ...base64Lines(4),
          `Private-MAC: ${chars(HEX, 40)}`,
        ].join('\n'),
        'keys/deploy.ppk',
      ),
    ],
    fps: [
      // The format's fields named in code, with no key between them.
      sample("const fields = ['Private-Lines: 0', 'Private-MAC: none']\nparse(fields)", 'src/ppk.ts'),
      sample(`Private-Lines: 2\nsee the manual\nfor what goes here\nPrivate-MAC: ${chars(HEX, 40)}`),
    ],
  },
  {
    id: 'django-secret-key',
    tps: [
      sample(`SECRET_KEY = 'django-insecure-${chars(`${LOWER}${DIGITS}!@#$%^&*(-_=+)`, 50)}'`, 'mysite/settings.py'),
      sample(`DJANGO_SECRET_KEY=${chars(`${ALNUM}!@#%^&*(-_=+)`, 50)}`, '.env'),
      sample(`app.secret_key = "${chars(`${ALNUM}!#%^&*`, 32)}"`, 'app.py'),
    ],
    fps: [
      sample("SECRET_KEY = os.environ['DJANGO_SECRET_KEY']", 'mysite/settings.py'),
      sample("SECRET_KEY = 'your-secret-key-goes-here-please'", 'mysite/settings.py'),
      sample('SECRET_KEY = get_random_secret_key_from_the_vault_cache', 'mysite/settings.py'),
    ],
  },
  {
    id: 'laravel-app-key',
    tps: [
      sample(`APP_KEY=base64:${chars(BASE64, 43)}=`, '.env'),
      sample(`'key' => env('APP_KEY', 'base64:${chars(BASE64, 43)}='),`, 'config/app.php'),
    ],
    fps: [sample('APP_KEY=', '.env.example'), sample("'key' => env('APP_KEY'),", 'config/app.php')],
  },
  {
    id: 'rails-master-key',
    // The rule reads the file's path, so its cases are files added in a diff.
    tps: [
      sample(addedFile('config/master.key', chars(HEX, 32), false), 'config/master.key'),
      sample(addedFile('config/credentials/production.key', chars(HEX, 32), true), 'config/credentials/production.key'),
    ],
    fps: [
      // The same shape in any other file is a digest or an id, not Rails' key.
      sample(addedFile('checksums/app.key.md5', chars(HEX, 32), true), 'checksums/app.key.md5'),
      sample(addedFile('config/master.key', 'not a key', true), 'config/master.key'),
    ],
  },
  {
    id: 'rails-secret-key-base',
    tps: [
      sample(`production:\n  secret_key_base: ${chars(HEX, 128)}`, 'config/secrets.yml'),
      sample(`SECRET_KEY_BASE=${chars(HEX, 128)}`, '.env'),
    ],
    fps: [sample('  secret_key_base: <%= ENV["SECRET_KEY_BASE"] %>', 'config/secrets.yml')],
  },
  {
    id: 'wordpress-auth-key',
    tps: [
      sample(`define('AUTH_KEY',         '${chars(`${ALNUM}!@#$%^&*()-_ []{}<>~+=,.;:/?|`, 64)}');`, 'wp-config.php'),
      sample(`define( 'NONCE_SALT', "${chars(`${ALNUM}!@#%^&*()-_[]{}<>~+=,.;:/?|`, 64)}" );`, 'wp-config.php'),
      sample(`SECURE_AUTH_SALT='${chars(`${ALNUM}!@#%^&*()-_[]{}<>~+=,.;:/?|`, 64)}'`, '.env'),
    ],
    fps: [
      sample("define('AUTH_KEY',         'put your unique phrase here');", 'wp-config-sample.php'),
      sample("const AUTH_KEY = 'Authorization'", 'src/headers.ts'),
    ],
  },
  {
    id: 'npmrc-auth',
    tps: [
      sample(`_auth = ${Buffer.from(`ci:${password()}`).toString('base64')}`, '.npmrc'),
      sample(
        `//npm.pkg.example-corp.io/:_authToken=${chars(HEX, 8)}-${chars(HEX, 4)}-4${chars(HEX, 3)}-a${chars(HEX, 3)}-${chars(HEX, 12)}`,
        '.npmrc',
      ),
      sample(`//registry.corp.io/:_password=${Buffer.from(password()).toString('base64')}`, '.npmrc'),
      sample(`npmAuthToken: "${chars(ALNUM, 36)}"`, '.yarnrc.yml'),
    ],
    fps: [
      sample(`//registry.npmjs.org/:_authToken=\${NPM_TOKEN}`, '.npmrc'),
      sample('    self._auth = auth_handler', 'client/session.py'),
      sample('_password = None', 'client/settings.py'),
    ],
  },
  {
    id: 'password-hash',
    tps: [
      sample(`(1, 'ada', '$2y$12$${chars(`./${ALNUM}`, 53)}', 1),`, 'db/dump.sql'),
      sample(`deploy:$6$${hashSalt()}$${chars(`./${ALNUM}`, 86)}:19000:0:99999:7:::`, 'etc/shadow'),
      sample(`admin:$apr1$${chars(`./${ALNUM}`, 8)}$${chars(`./${ALNUM}`, 22)}`, '.htpasswd'),
      sample(`root:$5$rounds=5000$${hashSalt()}$${chars(`./${ALNUM}`, 43)}:0:0`, 'etc/shadow'),
      sample(`"password": "pbkdf2_sha256$600000$${chars(ALNUM, 22)}$${chars(BASE64, 43)}="`, 'fixtures/users.json'),
      sample(
        `hash = "$argon2id$v=19$m=65536,t=3,p=4$${chars(`${ALNUM}+/`, 22)}$${chars(`${ALNUM}+/`, 43)}"`,
        'config/users.toml',
      ),
    ],
    fps: [
      sample('echo "$1$2" >> "$out"', 'scripts/join.sh'),
      sample('price: $6$ per seat', 'docs/pricing.md'),
      sample('const BCRYPT_PREFIX = "$2b$12$"', 'src/hash.ts'),
    ],
  },
  {
    id: 'filezilla-password',
    tps: [
      sample(`<Pass encoding="base64">${Buffer.from(password()).toString('base64')}</Pass>`, 'recentservers.xml'),
      sample(`            <Pass>${password()}</Pass>`, 'sitemanager.xml'),
    ],
    fps: [sample('<Pass></Pass>', 'sitemanager.xml'), sample('<Pass>password</Pass>', 'sitemanager.xml')],
  },
  {
    id: 'jetbrains-password',
    tps: [
      sample(
        `<fileTransfer host="files.corp.io" port="21" password="${[...password()].map((c) => (c.charCodeAt(0) ^ 0xdfaa).toString(16)).join('')}" username="deploy">`,
        '.idea/webServers.xml',
      ),
    ],
    fps: [sample('<fileTransfer host="files.corp.io" port="21" username="deploy">', '.idea/webServers.xml')],
  },
  {
    id: 'netrc-password',
    tps: [
      sample(`machine git.corp.io login deploy password ${password()}`, '.netrc'),
      sample(`RUN echo "machine api.corp.io password ${password()}" > ~/.netrc`, 'Dockerfile'),
    ],
    fps: [
      sample('machine example.com login user password pass', '.netrc'),
      sample('machine localhost login ci password ci', '.netrc'),
    ],
  },
  {
    id: 'password-assignment',
    tps: [
      sample(`DB_PASSWORD=${password()}`, '.env'),
      sample(`export MLAB_PASS='${password()}'`, '.bash_profile'),
      sample(`  password: ${password()}`, 'config/database.yml'),
      sample(`    "sshPassphrase" : "${password()}",`, 'robomongo.json'),
      sample(`AdminPassword=${password()}`, 'server.ini'),
      sample(`    $dbpasswd = '${password()}';`, 'config.php'),
      sample(`define( 'DB_PASSWORD', '${password()}' );`, 'wp-config.php'),
      sample(`<connection user="app" password="${password()}"/>`, 'data-sources.xml'),
      sample(`<jdbcPassword>${password()}</jdbcPassword>`, 'pom.xml'),
      sample(`const password = "${password()}"`, 'test/login.test.ts'),
      sample(`spring.datasource.password=${password()}`, 'application.properties'),
    ],
    fps: [
      sample('password = request.form["password"]', 'app/views.py'),
      sample(`  password: \${{ secrets.DB_PASSWORD }}`, '.github/workflows/ci.yml'),
      sample('POSTGRES_PASSWORD: postgres', 'docker-compose.yml'),
      sample('"forgotPassword": "Forgot your password?"', 'locales/en.json'),
      sample('"password": "Passwort"', 'locales/de.json'),
      sample("WEAK_PASSWORD: 'auth/weak-password'", 'src/errors.ts'),
      sample('password: string', 'src/types.ts'),
      sample('password = cfg.db2.password', 'app/db.py'),
      sample('if (password === "") return', 'src/form.ts'),
      sample('bypass: "A1b2c3d4!"', 'config/cache.yml'),
      sample('compass = "N0rth!East"', 'nav.py'),
      sample('password: "********"', 'config/example.yml'),
      sample('password: <your-password>', 'README.md'),
      sample("conn = connect(password=os.getenv('DB_PASS'))", 'app/db.py'),
      sample('  password_hash = "36dd292533174299fb0c34665df468bb881756ca9eaf9757d0cfde38f9ededa1";', 'module.nix'),
      sample('PASSWORD_MIN_LENGTH = 12', 'settings.py'),
      sample('    "@inquirer/password": "^4.0.7",', 'package.json'),
    ],
  },
  {
    id: 'url-password',
    tps: [
      sample(`https://deploy@corp.io:${chars(ALNUM, 8)}!#@${chars(DIGITS, 3)}@github.com`, '.git-credentials'),
      sample(`DATABASE_URL=postgres://app:${password()}@db.corp.io:5432/app`, '.env'),
      sample(`redis://:${chars(ALNUM, 24)}@cache.internal:6379/0`, 'config/cache.yml'),
    ],
    fps: [
      sample('postgresql://user:pass@localhost:5432/db', 'docker-compose.yml'),
      sample('http://nats-user:nats-pass@127.0.0.1:$NATS_MONITORING_PORT/varz', 'tests/run.sh'),
      sample("proxies = {'http': 'http://user:pass@10.10.1.10:3128/'}", 'docs/user/advanced.rst'),
      sample(`https://admin:${password()}@example.com/`, 'docs/setup.md'),
      sample(`\`https://\${user}:\${password}@\${host}\``, 'src/url.ts'),
      sample('https://example.com:8080/path@v2', 'README.md'),
      sample('git clone ssh://git@forge.corp.io:2222/team/app.git', 'README.md'),
      sample('"http://guest:guest@rabbit.corp.io:15672/api"', 'tests/rabbit.py'),
    ],
  },
]

/** Values gitleaks' generic rule takes beside a key-like name that are ids, digests, nonces or names in code (issue 27). */
export const GENERIC_LOOKALIKES: readonly OwnSample[] = [
  sample(`const cache_key = "${chars(HEX, 64)}"`, 'src/cache.ts'),
  sample(`TOKEN_HASH = "${chars(HEX, 64)}"`, 'app/tokens.py'),
  sample(`  "commit_key": "${chars(HEX, 40)}",`, 'data/build.json'),
  sample(`password_sha256_hex = "${chars(HEX, 64)}";`, 'modules/clickhouse.nix'),
  sample(`davmail.oauth.clientId = ${uuid()}`, 'davmail.properties'),
  sample(`credentialsId: '${uuid()}'`, 'Jenkinsfile'),
  sample(`report_access_id: ${uuid()}`, 'config/report.yml'),
  sample(`.header("sec-websocket-key", "${chars(BASE64, 22)}==")`, 'src/ws.rs'),
  sample('const accessToken = oauth2AccessTokenFromHeader', 'src/auth.ts'),
  sample('    token = session.authToken2', 'app/client.py'),
  sample('api_key: config.stripe.apiKeyV2', 'config/billing.yml'),
]

/** The same names given real-looking credentials, which stay secrets. */
export const GENERIC_SECRETS: readonly OwnSample[] = [
  sample(`  oauth_token: "${chars(HEX, 40)}"`, 'hub'),
  sample(`export HOMEBREW_GITHUB_API_TOKEN='${chars(HEX, 40)}'`, '.bash_profile'),
  sample(`"client_secret" : "${chars(HEX, 64)}",`, 'config.json'),
  sample(`api_token = "${uuid()}"`, 'settings.toml'),
  sample(`private_key = "${chars(HEX, 64)}"`, 'wallet.toml'),
  sample(`  api_key: ${chars(HEX, 32)}`, '.tugboat'),
  sample(`ENCRYPTION_KEY=${chars(HEX, 64)}`, '.env'),
]

/** A diff section that adds a one-line file. */
function addedFile(path: string, line: string, newline: boolean): string {
  return [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${path}`,
    '@@ -0,0 +1 @@',
    `+${line}`,
    ...(newline ? [''] : ['\\ No newline at end of file', '']),
  ].join('\n')
}

function uuid(): string {
  const hex = chars(HEX, 32)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`
}
