/**
 * The redaction corpus (issue 19): a generator for each secret kind the
 * redaction must find (the look-alikes it must leave alone are in
 * redact-lookalikes.ts).
 *
 * Every fake secret is built here at run time from a seeded generator, so
 * the repository holds none a secret scanner could flag, and none is real:
 * the random part is random, and the fixed parts are the vendors' public
 * formats. A sample says which of its parts must not survive (`secrets`:
 * the random parts; the formats' fixed prefixes are public) and which
 * finding kinds are right for it.
 */

/** mulberry32: a small seeded generator, so a failing case reproduces from its seed. */
export class Random {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }

  chars(alphabet: string, length: number): string {
    let out = ''
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)]
    return out
  }
}

export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
export const LOWER = 'abcdefghijklmnopqrstuvwxyz'
export const DIGITS = '0123456789'
export const ALNUM = UPPER + LOWER + DIGITS
export const BASE64 = `${ALNUM}+/`
export const BASE64URL = `${ALNUM}-_`
export const HEX = '0123456789abcdef'
export const BASE32 = `${UPPER}234567`

export type Sample = {
  /** The text placed: one line, or several (`multiline`). */
  text: string
  /** The random parts, none of which may survive redaction (nor any 8 characters of one). */
  secrets: string[]
  multiline: boolean
}

export type SecretKind = {
  name: string
  /** The finding kinds that are right for it (gitleaks' generic rule may find a key beside its name). */
  kinds: readonly string[]
  make(random: Random): Sample
}

function line(text: string, ...secrets: string[]): Sample {
  return { text, secrets, multiline: false }
}

/** Base64 text broken into lines of `width`, as PEM and PGP armour write it. */
export function armoured(random: Random, lines: number, width: number): string[] {
  const body: string[] = []
  for (let i = 0; i < lines - 1; i++) body.push(random.chars(BASE64, width))
  body.push(`${random.chars(BASE64, random.int(8, width - 4))}${random.pick(['', '=', '=='])}`)
  return body
}

function pem(label: string, width: number, first = ''): (random: Random) => Sample {
  return (random) => {
    const body = armoured(random, random.int(4, 20), width)
    body[0] = `${first}${body[0]?.slice(first.length) ?? ''}`
    return {
      text: [`-----BEGIN ${label}-----`, ...body, `-----END ${label}-----`].join('\n'),
      secrets: body.map((text, index) => (index === 0 ? text.slice(first.length) : text)).filter((s) => s.length >= 8),
      multiline: true,
    }
  }
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url')
}

export const SECRET_KINDS: readonly SecretKind[] = [
  // Each body starts as its DER (or OpenSSH, or OpenPGP) encoding does, as a real key's would.
  { name: 'RSA private key (PEM)', kinds: ['private-key'], make: pem('RSA PRIVATE KEY', 64, 'MIIEpAIBAAKCAQEA') },
  {
    name: 'PKCS #8 private key (PEM)',
    kinds: ['private-key'],
    make: pem('PRIVATE KEY', 64, 'MIIEvgIBADANBgkqhkiG9w0BAQEFAASC'),
  },
  { name: 'EC private key (PEM)', kinds: ['private-key'], make: pem('EC PRIVATE KEY', 64, 'MHcCAQEEI') },
  {
    name: 'OpenSSH private key',
    kinds: ['private-key'],
    make: pem('OPENSSH PRIVATE KEY', 70, 'b3BlbnNzaC1rZXktdjEAAAAA'),
  },
  {
    name: 'PGP private key block',
    kinds: ['private-key'],
    make: (random) => {
      const body = armoured(random, random.int(6, 20), 64)
      body[0] = `lQOYBF${body[0]?.slice(6) ?? ''}`
      const checksum = random.chars(BASE64, 4)
      return {
        text: [
          '-----BEGIN PGP PRIVATE KEY BLOCK-----',
          '',
          ...body,
          `=${checksum}`,
          '-----END PGP PRIVATE KEY BLOCK-----',
        ].join('\n'),
        secrets: body.map((text, index) => (index === 0 ? text.slice(6) : text)).filter((s) => s.length >= 8),
        multiline: true,
      }
    },
  },
  {
    name: 'AWS access key id',
    kinds: ['aws-access-token'],
    make: (random) => {
      const id = `${random.pick(['AKIA', 'ASIA'])}${random.chars(BASE32, 16)}`
      return line(id, id.slice(4))
    },
  },
  {
    name: 'AWS secret access key',
    kinds: ['aws-secret-access-key', 'generic-api-key'],
    make: (random) => {
      const secret = random.chars(BASE64, 40)
      const form = random.pick([
        `aws_secret_access_key = ${secret}`,
        `AWS_SECRET_ACCESS_KEY=${secret}`,
        `"SecretAccessKey": "${secret}"`,
        `secretAccessKey: '${secret}'`,
      ])
      return line(form, secret)
    },
  },
  {
    name: 'GCP API key',
    kinds: ['gcp-api-key'],
    make: (random) => {
      const key = `AIza${random.chars(BASE64URL, 35)}`
      return line(key, key.slice(4))
    },
  },
  {
    name: 'GCP service-account JSON',
    kinds: ['private-key'],
    make: (random) => {
      const body = armoured(random, random.int(8, 20), 64)
      body[0] = `MIIEvgIBADANBgkqhkiG9w0BAQEFAASC${body[0]?.slice(32) ?? ''}`
      const project = `${random.chars(LOWER, 6)}-${random.chars(DIGITS, 6)}`
      return {
        text: [
          '{',
          '  "type": "service_account",',
          `  "project_id": "${project}",`,
          `  "private_key_id": "${random.chars(HEX, 40)}",`,
          `  "private_key": "-----BEGIN PRIVATE KEY-----\\n${body.join('\\n')}\\n-----END PRIVATE KEY-----\\n",`,
          `  "client_email": "deployer@${project}.iam.gserviceaccount.com",`,
          `  "client_id": "${random.chars(DIGITS, 21)}",`,
          '  "token_uri": "https://oauth2.googleapis.com/token"',
          '}',
        ].join('\n'),
        secrets: body.map((text, index) => (index === 0 ? text.slice(32) : text)).filter((s) => s.length >= 8),
        multiline: true,
      }
    },
  },
  {
    name: 'Azure storage account key',
    kinds: ['azure-storage-account-key'],
    make: (random) => {
      const key = `${random.chars(BASE64, 86)}==`
      return line(
        `DefaultEndpointsProtocol=https;AccountName=${random.chars(LOWER, 10)};AccountKey=${key};EndpointSuffix=core.windows.net`,
        key.slice(0, 86),
      )
    },
  },
  ...(['ghp', 'gho', 'ghu', 'ghs', 'ghr'] as const).map(
    (prefix): SecretKind => ({
      name: `GitHub ${prefix}_ token`,
      kinds: ['github-pat', 'github-oauth', 'github-app-token', 'github-refresh-token'],
      make: (random) => {
        const body = random.chars(ALNUM, 36)
        return line(`${prefix}_${body}`, body)
      },
    }),
  ),
  {
    name: 'GitHub fine-grained PAT',
    kinds: ['github-fine-grained-pat'],
    make: (random) => {
      const body = `${random.chars(ALNUM, 22)}_${random.chars(ALNUM, 59)}`
      return line(`github_pat_${body}`, body)
    },
  },
  {
    name: 'GitLab PAT',
    kinds: ['gitlab-pat', 'gitlab-pat-routable'],
    make: (random) => {
      const body = random.chars(`${ALNUM}_-`, 20)
      return line(`glpat-${body}`, body)
    },
  },
  {
    name: 'Slack bot token',
    kinds: ['slack-bot-token', 'slack-legacy-bot-token'],
    make: (random) => {
      const tail = random.chars(ALNUM, 24)
      return line(`xoxb-${random.chars(DIGITS, 12)}-${random.chars(DIGITS, 13)}-${tail}`, tail)
    },
  },
  {
    name: 'Slack user token',
    kinds: ['slack-user-token'],
    make: (random) => {
      const tail = random.chars(HEX, 32)
      const ids = [random.chars(DIGITS, 11), random.chars(DIGITS, 12), random.chars(DIGITS, 13)]
      return line(`${random.pick(['xoxp', 'xoxe'])}-${ids.join('-')}-${tail}`, tail)
    },
  },
  {
    name: 'Slack webhook',
    kinds: ['slack-webhook-url'],
    make: (random) => {
      const token = random.chars(ALNUM, 24)
      return line(
        `https://hooks.slack.com/services/T${random.chars(UPPER + DIGITS, 9)}/B${random.chars(UPPER + DIGITS, 10)}/${token}`,
        token,
      )
    },
  },
  {
    name: 'npm token',
    kinds: ['npm-access-token'],
    make: (random) => {
      const body = random.chars(ALNUM, 36)
      return line(`npm_${body}`, body)
    },
  },
  {
    name: 'PyPI upload token',
    kinds: ['pypi-upload-token'],
    make: (random) => {
      const body = random.chars(BASE64URL, random.int(60, 160))
      return line(`pypi-AgEIcHlwaS5vcmc${body}`, body)
    },
  },
  {
    name: 'Anthropic API key',
    kinds: ['anthropic-api-key', 'anthropic-admin-api-key'],
    make: (random) => {
      const body = random.chars(BASE64URL, 93)
      return line(`sk-ant-${random.pick(['api03', 'admin01'])}-${body}AA`, body)
    },
  },
  {
    name: 'OpenAI API key',
    kinds: ['openai-api-key'],
    make: (random) => {
      if (random.next() < 0.3) {
        const [a, b] = [random.chars(ALNUM, 20), random.chars(ALNUM, 20)]
        return line(`sk-${a}T3BlbkFJ${b}`, a, b)
      }
      // Issued keys end in A (the revoked ones in gitleaks' pull request 1780 do), so the tail ends on a word character.
      const width = random.pick([74, 58])
      const [a, b] = [random.chars(BASE64URL, width), `${random.chars(BASE64URL, width - 1)}A`]
      return line(`sk-${random.pick(['proj', 'svcacct', 'admin'])}-${a}T3BlbkFJ${b}`, a, b)
    },
  },
  {
    name: 'Stripe live key',
    kinds: ['stripe-access-token'],
    make: (random) => {
      const body = random.chars(ALNUM, random.pick([24, 99]))
      return line(`${random.pick(['sk', 'rk'])}_live_${body}`, body)
    },
  },
  {
    name: 'JWT',
    kinds: ['jwt'],
    make: (random) => {
      const header = base64url(JSON.stringify({ alg: random.pick(['HS256', 'RS256', 'ES256']), typ: 'JWT' }))
      const payload = base64url(
        JSON.stringify({ sub: random.chars(ALNUM, 12), iat: random.int(1_500_000_000, 1_900_000_000) }),
      )
      const signature = random.chars(BASE64URL, 43)
      return line(`${header}.${payload}.${signature}`, payload.slice(10), signature)
    },
  },
  {
    name: 'password in a URL',
    kinds: ['url-password'],
    make: (random) => {
      const password = random.chars(`${ALNUM}._~-`, random.int(10, 24))
      const scheme = random.pick(['https', 'postgres', 'mysql', 'redis', 'amqp', 'mongodb+srv', 'ftp', 'nats'])
      // Not an example domain (RFC 2606) nor this machine: passwords for those are passed over.
      const host = `${random.chars(LOWER, 6)}.${random.pick(['internal', 'cloud.io', 'corp.net'])}`
      return line(`${scheme}://${random.chars(LOWER, 7)}:${password}@${host}:${random.int(1000, 9999)}/app`, password)
    },
  },
  // The kinds issue 27 found missing (core/redaction/own-rules.ts).
  {
    name: 'password with @, # and ! in a URL',
    kinds: ['url-password'],
    make: (random) => {
      const password = `${random.chars(ALNUM, 6)}${random.pick(['@', '#', '!'])}${random.chars(ALNUM, 6)}`
      return line(`https://${random.chars(LOWER, 5)}@corp.io:${password}@git.${random.chars(LOWER, 6)}.io`, password)
    },
  },
  {
    name: 'PuTTY private key',
    kinds: ['putty-private-key'],
    make: (random) => {
      const publicLines = armoured(random, 2, 64)
      const privateLines = armoured(random, random.int(4, 14), 64)
      return {
        text: [
          'PuTTY-User-Key-File-2: ssh-rsa',
          'Encryption: none',
          `Comment: ${random.chars(LOWER, 6)}`,
          `Public-Lines: ${publicLines.length}`,
          ...publicLines,
          `Private-Lines: ${privateLines.length}`,
          ...privateLines,
          `Private-MAC: ${random.chars(HEX, 40)}`,
        ].join('\n'),
        secrets: privateLines.filter((text) => text.length >= 8),
        multiline: true,
      }
    },
  },
  {
    name: 'Django SECRET_KEY',
    kinds: ['django-secret-key'],
    make: (random) => {
      const key = random.chars(`${LOWER}${DIGITS}!@#$%^&*(-_=+)`, 50)
      return line(`SECRET_KEY = '${key}'`, key)
    },
  },
  {
    name: 'Laravel APP_KEY',
    kinds: ['laravel-app-key'],
    make: (random) => {
      const key = `${random.chars(BASE64, 43)}=`
      return line(`APP_KEY=base64:${key}`, key)
    },
  },
  {
    name: 'Rails secret_key_base',
    kinds: ['rails-secret-key-base'],
    make: (random) => {
      const key = random.chars(HEX, 128)
      return line(`secret_key_base: ${key}`, key)
    },
  },
  {
    name: 'WordPress salt',
    kinds: ['wordpress-auth-key'],
    make: (random) => {
      const salt = random.chars(`${ALNUM}!@#$%^&*()-_[]{}<>~+=,.;:/?|`, 64)
      const name = random.pick(['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_SALT', 'NONCE_SALT'])
      return line(`define('${name}', '${salt}');`, salt)
    },
  },
  {
    name: '.npmrc auth token',
    kinds: ['npmrc-auth'],
    make: (random) => {
      const hex = random.chars(HEX, 32)
      const token = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
      return line(`//npm.${random.chars(LOWER, 5)}.io/:_authToken=${token}`, hex.slice(0, 8), hex.slice(20))
    },
  },
  {
    name: 'bcrypt or sha512crypt password hash',
    kinds: ['password-hash'],
    make: (random) => {
      const alphabet = `./${ALNUM}`
      if (random.next() < 0.5) {
        const hash = random.chars(alphabet, 53)
        return line(`$2y$12$${hash}`, hash)
      }
      const [salt, hash] = [random.chars(alphabet, 16), random.chars(alphabet, 86)]
      return line(`${random.chars(LOWER, 6)}:$6$${salt}$${hash}:19000:0:99999:7:::`, salt, hash)
    },
  },
  {
    name: 'FileZilla password',
    kinds: ['filezilla-password'],
    make: (random) => {
      const encoded = Buffer.from(`${random.chars(ALNUM, 12)}${random.chars(DIGITS, 3)}`).toString('base64')
      return line(`<Pass encoding="base64">${encoded}</Pass>`, encoded)
    },
  },
  {
    name: 'JetBrains encoded password',
    kinds: ['jetbrains-password'],
    make: (random) => {
      const encoded = [...random.chars(ALNUM, 12)].map((c) => (c.charCodeAt(0) ^ 0xdfaa).toString(16)).join('')
      return line(`<fileTransfer host="ftp.corp.io" password="${encoded}" username="deploy">`, encoded)
    },
  },
  {
    name: '.netrc password',
    kinds: ['netrc-password'],
    make: (random) => {
      const password = `${random.chars(ALNUM, 10)}${random.chars(DIGITS, 3)}`
      return line(`machine git.corp.io login ${random.chars(LOWER, 6)} password ${password}`, password)
    },
  },
  {
    name: 'password given to a password-named key',
    kinds: ['password-assignment'],
    make: (random) => {
      const password = `${random.chars(ALNUM, 10)}${random.chars(DIGITS, 2)}${random.pick(['!', '*', '%', '^'])}`
      const form = random.pick([
        `DB_PASSWORD=${password}`,
        `"userPassword": "${password}"`,
        `  password: ${password}`,
        `<password>${password}</password>`,
        `$dbpasswd = '${password}';`,
      ])
      return line(form, password.slice(0, 12))
    },
  },
]
