/**
 * A PR that holds secrets, built from the redaction corpus at run time (so
 * the repository holds no secret a scanner could flag): an AWS key id in
 * the title, a GitHub token in a commit message, and in the diff the same
 * token again, an Anthropic key and a PEM private key, on added lines.
 */
import { Random, type Sample, SECRET_KINDS } from '../core/redaction/redact-corpus.ts'

export type SecretPr = {
  title: string
  commits: { message: string }[]
  diff: string
  /** Every random part placed: none may reach a provider (nor any 8 characters of one). */
  secrets: string[]
  /** The distinct secrets placed: what the run must count as redacted. */
  distinct: number
}

function sample(name: string, random: Random): Sample {
  const kind = SECRET_KINDS.find((candidate) => candidate.name === name)
  if (kind === undefined) throw new RangeError(`no corpus kind ${name}`)
  return kind.make(random)
}

/** The sample's text as added lines of a hunk. */
function added(text: string): string[] {
  return text.split('\n').map((line) => `+${line}`)
}

export function aSecretPr(seed = 19): SecretPr {
  const random = new Random(seed)
  const aws = sample('AWS access key id', random)
  const github = sample('GitHub fine-grained PAT', random)
  const anthropic = sample('Anthropic API key', random)
  const pem = sample('RSA private key (PEM)', random)
  const config = ['export const config = {', `  token: '${github.text}',`, `  model: '${anthropic.text}',`, '}']
  const key = added(pem.text)
  const diff = [
    'diff --git a/src/config.ts b/src/config.ts',
    'index 1111111..2222222 100644',
    '--- a/src/config.ts',
    '+++ b/src/config.ts',
    '@@ -1,1 +1,5 @@',
    ' // settings',
    ...added(config.join('\n')),
    'diff --git a/deploy/key.pem b/deploy/key.pem',
    'new file mode 100644',
    'index 0000000..3333333',
    '--- /dev/null',
    '+++ b/deploy/key.pem',
    `@@ -0,0 +1,${key.length} @@`,
    ...key,
    '',
  ].join('\n')
  return {
    title: `Deploy with ${aws.text}`,
    commits: [{ message: `Add the deploy config\n\nThe token is ${github.text}.` }],
    diff,
    secrets: [...aws.secrets, ...github.secrets, ...anthropic.secrets, ...pem.secrets],
    distinct: 4,
  }
}

/** Whether `text` holds any secret of `pr`, or 8 characters of one in a row. */
export function leaksSecret(pr: Pick<SecretPr, 'secrets'>, text: string): boolean {
  return pr.secrets.some((secret) => {
    for (let at = 0; at + 8 <= secret.length; at++) if (text.includes(secret.slice(at, at + 8))) return true
    return false
  })
}
