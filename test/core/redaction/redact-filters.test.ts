/**
 * Placeholders that hide no code (issue 27): a private key's placeholder
 * covers the key's own lines and no more, never lines of both sides of a
 * diff, and a PEM header with no key body after it is no key; and the
 * value checks the patterns can't make (core/redaction/filters.ts, values.ts).
 */
import { describe, expect, it } from 'bun:test'
import { diffPieces, isKeyBody, keyBody } from '../../../core/redaction/filters.ts'
import { redactSharedContext } from '../../../core/redaction/redact.ts'
import { isDottedName, isGenericSecret, isPlaceholder } from '../../../core/redaction/values.ts'
import { armoured, Random } from './redact-corpus.ts'

const KEY_START = 'MIIEpAIBAAKCAQEA'

/** A fake RSA key's body lines, built at run time. */
function body(seed: number, lines = 6): string[] {
  const out = armoured(new Random(seed), lines, 64)
  out[0] = `${KEY_START}${out[0]?.slice(KEY_START.length)}`
  return out
}

function fileDiff(path: string, hunks: string[][]): string {
  return [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, ...hunks.flat(), ''].join('\n')
}

function redactedDiff(diff: string): string[] {
  return redactSharedContext({ title: '', commits: [], diff }).diff.join('').split('\n')
}

describe('a private key in a diff', () => {
  it('leaves a list of PEM headers in code, and every line after it, as they are', () => {
    const diff = fileDiff('src/scanner/rules.ts', [
      [
        '@@ -1,6 +1,9 @@',
        ' export const PEM_HEADERS = [',
        "   '-----BEGIN RSA PRIVATE KEY-----',",
        "-  '-----BEGIN DSA PRIVATE KEY-----',",
        "+  '-----BEGIN EC PRIVATE KEY-----',",
        "+  '-----BEGIN OPENSSH PRIVATE KEY-----',",
        "   '-----BEGIN PRIVATE KEY-----',",
        ' ]',
        '+export function looksLikeKey(text: string): boolean {',
        "+  return PEM_HEADERS.some((header) => text.includes(header)) && text.includes('-----END')",
        '+}',
      ],
    ])
    const result = redactSharedContext({ title: '', commits: [], diff })
    expect(result.findings).toEqual([])
    expect(result.diff.join('')).toBe(diff)
  })

  it('leaves a PEM template whose body is filled in at run time, and the code after it', () => {
    const diff = fileDiff('src/jwt.ts', [
      [
        '@@ -0,0 +1,6 @@',
        '+export function toPem(der: ArrayBuffer): string {',
        `+  const pem = \`-----BEGIN PRIVATE KEY-----\\n\${encodeBase64(der)}\\n-----END PRIVATE KEY-----\``,
        '+  return pem',
        '+}',
        `+const publicPem = \`-----BEGIN PUBLIC KEY-----\\n\${spki}\\n-----END PUBLIC KEY-----\``,
        '+export const KEY_TYPES = ["PRIVATE KEY-----", "PUBLIC KEY-----"]',
      ],
    ])
    expect(redactSharedContext({ title: '', commits: [], diff }).findings).toEqual([])
  })

  it('finds a real key after a PEM header that is a string in code, and takes only the key', () => {
    const key = ['-----BEGIN RSA PRIVATE KEY-----', ...body(1), '-----END RSA PRIVATE KEY-----']
    const lines = ['const HEADER = "-----BEGIN RSA PRIVATE KEY-----"', 'const fixture = `', ...key, '`']
    const diff = fileDiff('test/fixture.ts', [[`@@ -0,0 +1,${lines.length} @@`, ...lines.map((line) => `+${line}`)]])
    const out = redactedDiff(diff)
    expect(out[4]).toBe('+const HEADER = "-----BEGIN RSA PRIVATE KEY-----"')
    expect(out[5]).toBe('+const fixture = `')
    expect(out[6]).toBe('+[redacted private-key #1]')
    expect(out.slice(7, 7 + key.length - 1)).toEqual(Array.from({ length: key.length - 1 }, () => '+'))
    expect(out[6 + key.length]).toBe('+`')
  })

  it('redacts a key rotated in place once per side, and keeps the context lines around it', () => {
    const [oldBody, newBody] = [body(2), body(3)]
    const diff = fileDiff('certs/ca.key', [
      [
        `@@ -1,${oldBody.length + 2} +1,${newBody.length + 2} @@`,
        ' -----BEGIN RSA PRIVATE KEY-----',
        ...oldBody.map((line) => `-${line}`),
        ...newBody.map((line) => `+${line}`),
        ' -----END RSA PRIVATE KEY-----',
      ],
    ])
    const out = redactedDiff(diff)
    const removed = out.filter((line) => line.startsWith('-') && !line.startsWith('---'))
    const added = out.filter((line) => line.startsWith('+') && !line.startsWith('+++'))
    expect(out[4]).toBe(' -----BEGIN RSA PRIVATE KEY-----')
    expect(removed).toEqual(['-[redacted private-key #1]', ...oldBody.slice(1).map(() => '-')])
    expect(added).toEqual(['+[redacted private-key #2]', ...newBody.slice(1).map(() => '+')])
    expect(out[out.length - 2]).toBe(' -----END RSA PRIVATE KEY-----')
  })

  it('cuts a key that runs over two hunks at the hunk header, which stays', () => {
    const lines = body(4, 8)
    const diff = fileDiff('deploy/key.pem', [
      ['@@ -1,4 +1,4 @@', ' -----BEGIN RSA PRIVATE KEY-----', ...lines.slice(0, 3).map((line) => ` ${line}`)],
      ['@@ -20,4 +20,4 @@', ...lines.slice(5).map((line) => ` ${line}`), ' -----END RSA PRIVATE KEY-----'],
    ])
    const out = redactedDiff(diff)
    expect(out).toContain('@@ -20,4 +20,4 @@')
    expect(out.filter((line) => line.includes('[redacted private-key'))).toEqual([
      ' [redacted private-key #1]',
      ' [redacted private-key #2]',
    ])
    expect(out.some((line) => lines.some((keyLine) => line.includes(keyLine.slice(0, 12))))).toBe(false)
  })
})

describe('diffPieces', () => {
  it('cuts a span at each change of marker and leaves hunk headers out', () => {
    const text = ' a1\n-b1\n-b2\n+c1\n@@ -9 +9 @@\n d1\n'
    const pieces = diffPieces(text, 1, text.length - 1, 'generic-api-key').map((p) => text.slice(p.start, p.end))
    expect(pieces).toEqual(['a1', 'b1\n-b2', 'c1', 'd1'])
  })

  it('keeps a span on one side whole, and drops a private key piece that holds only its BEGIN or END line', () => {
    const text = '+k1\n+k2\n'
    expect(diffPieces(text, 1, 7, 'private-key')).toEqual([{ start: 1, end: 7 }])
    const [a, b] = [body(5, 2)[0] as string, body(6, 2)[0] as string]
    const key = ` -----BEGIN X PRIVATE KEY-----\n-${a}\n+${b}\n -----END X PRIVATE KEY-----`
    const pieces = diffPieces(key, 1, key.length, 'private-key').map((p) => key.slice(p.start, p.end))
    expect(pieces).toEqual([a, b])
  })

  it("judges a key's pieces by side: a side whose key has no body keeps its lines", () => {
    // A scanner's sample that once had a body of one word, now a key's.
    const b = body(7, 2)
    const key = ` -----BEGIN PRIVATE KEY-----\n-anything\n+${b[0]}\n+${b[1]}\n -----END PRIVATE KEY-----`
    const pieces = diffPieces(key, 1, key.length, 'private-key').map((p) => key.slice(p.start, p.end))
    expect(pieces).toEqual([`${b[0]}\n+${b[1]}`])
  })
})

describe('keyBody', () => {
  const key = (body: string, diff = false) => isKeyBody(keyBody(body, diff, false))
  const line = (seed: number) => body(seed, 2)[0] as string

  it('takes base64 lines for a body, as a file, a JSON string or code holds them', () => {
    expect(key(`\n${line(1)}\n${line(2)}\n`)).toBe(true)
    expect(key(`\\n${line(1)}\\n${line(2)}\\n`)).toBe(true)
    expect(key(`\\n" +\n  "${line(1)}\\n" +\n  "${line(2)}\\n" +\n  "`)).toBe(true)
    expect(key(`\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00FF\n\n${line(1)}\n`)).toBe(true)
    expect(key(`\n+${line(1)}\n@@ -1 +1 @@\n ${line(2)}\n`, true)).toBe(true)
    expect(key(`\n# ${line(1)}\nconst more = ${line(2)}\n`)).toBe(true)
    expect(keyBody(`\n${line(1)}\nAb==\n`, false, false)).toEqual({ material: 64, other: 4, base64: 68 })
  })

  it('takes no code, template or truncated body for a key', () => {
    expect(key(`\\n\${encodeBase64(der)}\\n`)).toBe(false)
    expect(key("', '-----BEGIN EC PRIVATE KEY-----', '")).toBe(false)
    expect(key('\nMIIEpAIBAAKCAQEA...\n')).toBe(false)
    expect(key('\n}\nexport function looksLikeKey(text: string): boolean {\n  return text.length > 40\n}\n')).toBe(
      false,
    )
  })
})

describe('isPlaceholder', () => {
  it('knows placeholders, references and templates', () => {
    for (const value of [
      'password',
      'changeme',
      'xxxxxxxx',
      '********',
      `\${DB_PASSWORD}`,
      '{{ vault_db_password }}',
      '%(password)s',
      '$PASS',
      '<your-password>',
      '[secret]',
      'your_password_here',
      'dummy-pass',
      'Pa$$w0rd',
      'pass#pass',
      'mysecretpassword',
      '!vault',
      '/run/secrets/db',
      'abc',
    ]) {
      expect({ value, placeholder: isPlaceholder(value) }).toEqual({ value, placeholder: true })
    }
    expect(isPlaceholder('irc_pass', ['IRC_PASS'])).toBe(true)
  })

  it('takes a password for a password', () => {
    for (const value of ['hunter22', 'Pass!12345', 'password!#@498', 'ExamplePas123', 'x7$Kq!pL2#', 'mysql-Prod-42']) {
      expect({ value, placeholder: isPlaceholder(value) }).toEqual({ value, placeholder: false })
    }
  })

  it('sees a template inside a value only when asked, for alphabets that make one by chance', () => {
    expect(isPlaceholder(`pw-\${ENV}-1`)).toBe(true)
    expect(isPlaceholder('a%(fo)sb$(x)q-long-random', [], false)).toBe(false)
  })
})

describe('isGenericSecret', () => {
  const hex = (length: number) => new Random(length).chars('0123456789abcdef', length)
  const uuid = '3f12fccd-eb01-4f25-ac53-e8191725701d'

  it('passes over digests, nonces and ids under the names the issue gives, and UUIDs', () => {
    expect(isGenericSecret(hex(64), 'cache_key')).toBe(false)
    expect(isGenericSecret(hex(64), 'TOKEN_HASH')).toBe(false)
    expect(isGenericSecret(hex(40), 'MantleAPI_version')).toBe(false)
    expect(isGenericSecret(uuid, 'davmail.oauth.clientId')).toBe(false)
    expect(isGenericSecret(uuid, 'key')).toBe(false)
    expect(isGenericSecret('6D69KGBOr4Re+Nj6zx9aQA==', 'sec-websocket-key')).toBe(false)
  })

  it('keeps them under a credential name, and keeps anything else', () => {
    expect(isGenericSecret(hex(40), 'oauth_token')).toBe(true)
    expect(isGenericSecret(hex(64), 'client_secret')).toBe(true)
    expect(isGenericSecret(hex(64), 'ENCRYPTION_KEY')).toBe(true)
    expect(isGenericSecret(uuid, 'api_token')).toBe(true)
    expect(isGenericSecret(hex(32), 'HEROKU_API_KEY')).toBe(true)
    expect(isGenericSecret(hex(32), 'key')).toBe(true)
    expect(isGenericSecret('Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB', 'token')).toBe(true)
  })

  it('reads a dotted name as a reference, and no random token as one', () => {
    expect(isDottedName('config.stripe.apiKeyV2')).toBe(true)
    expect(isDottedName('process.env.API_TOKEN_2')).toBe(true)
    const random = new Random(11)
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
    for (let i = 0; i < 2000; i++) expect(isDottedName(random.chars(alphabet, random.int(16, 48)))).toBe(false)
  })
})
