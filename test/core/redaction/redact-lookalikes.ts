/**
 * The look-alikes of the redaction corpus (issue 19): ids and hashes that
 * look random, and the example keys vendors publish, which the redaction
 * must leave byte for byte; and the neutral words the tests put around a
 * sample. Built at run time like the secrets (redact-corpus.ts).
 */
import { armoured, BASE64, HEX, LOWER, type Random } from './redact-corpus.ts'

export type NonSecretKind = { name: string; make(random: Random): { text: string; multiline: boolean } }

function one(text: string): { text: string; multiline: boolean } {
  return { text, multiline: false }
}

function uuid(random: Random): string {
  const hex = random.chars(HEX, 32)
  const variant = random.pick(['8', '9', 'a', 'b'])
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`
}

/** What must stay byte for byte: ids and hashes that look random, and the example keys vendors publish. */
export const NON_SECRETS: readonly NonSecretKind[] = [
  { name: 'commit SHA', make: (random) => one(`Reverts ${random.chars(HEX, 40)}`) },
  { name: 'short commit SHA', make: (random) => one(`fixup of ${random.chars(HEX, random.int(7, 12))}`) },
  {
    name: 'cherry-pick trailer',
    make: (random) => one(`(cherry picked from commit ${random.chars(HEX, 40)})`),
  },
  { name: 'UUID', make: (random) => one(`"id": "${uuid(random)}"`) },
  { name: 'UUID in a path', make: (random) => one(`/v1/jobs/${uuid(random)}/status`) },
  {
    name: 'lockfile integrity hash',
    make: (random) => one(`"integrity": "sha512-${random.chars(BASE64, 86)}=="`),
  },
  {
    name: 'subresource integrity hash',
    make: (random) => one(`<script src="/app.js" integrity="sha384-${random.chars(BASE64, 64)}"></script>`),
  },
  {
    name: 'base64 image',
    make: (random) => one(`background: url(data:image/png;base64,iVBORw0KGgo${random.chars(BASE64, 120)}=);`),
  },
  {
    name: 'base64 text blob',
    make: (random) => one(`const fixture = '${Buffer.from(random.chars(`${LOWER} `, 90)).toString('base64')}'`),
  },
  {
    name: 'SSH public key',
    make: (random) => one(`ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${random.chars(BASE64, 43)} deploy@build-host`),
  },
  {
    name: 'certificate',
    make: (random) => ({
      text: [
        '-----BEGIN CERTIFICATE-----',
        ...armoured(random, random.int(4, 12), 64),
        '-----END CERTIFICATE-----',
      ].join('\n'),
      multiline: true,
    }),
  },
  {
    name: 'PGP public key block',
    make: (random) => ({
      text: [
        '-----BEGIN PGP PUBLIC KEY BLOCK-----',
        '',
        ...armoured(random, random.int(4, 12), 64),
        `=${random.chars(BASE64, 4)}`,
        '-----END PGP PUBLIC KEY BLOCK-----',
      ].join('\n'),
      multiline: true,
    }),
  },
  { name: 'AWS example access key id', make: () => one(`aws_access_key_id = AKIAIOSFODNN7${'EXAMPLE'}`) },
  {
    name: 'AWS example secret access key',
    make: () => one(`aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLEKEY'}`),
  },
  {
    name: 'Azurite account key',
    make: () =>
      one(
        `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/${'K1SZFPTOtr/KBHBeksoGMGw=='};BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;`,
      ),
  },
  {
    name: 'URL without a password',
    make: (random) => one(`git clone ssh://git@forge.example/${random.chars(LOWER, 6)}.git`),
  },
  // Issue 27: what gitleaks' rules took for secrets, and placeholders that our rules pass over.
  {
    name: 'PEM headers listed in code',
    make: () => ({
      text: [
        'const PEM_HEADERS = [',
        "  '-----BEGIN RSA PRIVATE KEY-----',",
        "  '-----BEGIN EC PRIVATE KEY-----',",
        "  '-----BEGIN PRIVATE KEY-----',",
        ']',
        'export const isPem = (text) => PEM_HEADERS.some((header) => text.startsWith(header))',
        "const footer = '-----END PRIVATE KEY-----'",
      ].join('\n'),
      multiline: true,
    }),
  },
  {
    name: 'PEM template filled in at run time',
    make: (random) =>
      one(
        `const pem = \`-----BEGIN PRIVATE KEY-----\\n\${encodeBase64(${random.pick(['der', 'exported', 'pkcs8'])})}\\n-----END PRIVATE KEY-----\``,
      ),
  },
  { name: 'hex digest under a key-like name', make: (random) => one(`const cache_key = "${random.chars(HEX, 64)}"`) },
  { name: 'token hash', make: (random) => one(`TOKEN_HASH = "${random.chars(HEX, 64)}"`) },
  { name: 'UUID under an id name', make: (random) => one(`clientId = "${uuid(random)}"`) },
  {
    name: 'placeholder password',
    make: (random) =>
      one(
        random.pick([
          'DB_PASSWORD=changeme',
          `password: \${DB_PASSWORD}`,
          'POSTGRES_PASSWORD: postgres',
          '"password": "<your password>"',
          "define('DB_PASSWORD', 'password_here');",
        ]),
      ),
  },
  {
    name: 'URL with a password for this machine',
    make: (random) => one(`postgres://app:${random.chars(LOWER, 12)}9@localhost:5432/app`),
  },
  {
    name: 'version and build id',
    make: (random) =>
      one(`v${random.int(1, 30)}.${random.int(0, 99)}.${random.int(0, 999)}+build.${random.chars(HEX, 12)}`),
  },
]

/** Plain words and code that hold no secret and no key name a rule keys on, for around the placed text. */
export const NEUTRAL_WORDS: readonly string[] =
  'the widget render count value list update return const items total page size index label done fix when after before with from 42 = + { } // # if for name: ok'.split(
    ' ',
  )
