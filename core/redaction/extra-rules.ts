/**
 * The kinds issue 19 requires that gitleaks' rules do not cover, each taken
 * from another well-kept rule set rather than written here (provenance in
 * core/redaction/gitleaks/PROVENANCE.md, "The rules added"):
 *
 * - an AWS secret access key, from secretlint's AWS rule: gitleaks has the
 *   access key id (aws-access-token) but not the secret beside it;
 * - an Azure storage account key, from Yelp's detect-secrets: gitleaks has
 *   Azure AD client secrets only;
 * - a password in a URL (`scheme://user:password@host`), from detect-secrets'
 *   basic-auth plugin: gitleaks has none for URLs in general.
 *
 * Each keeps its upstream pattern; what is ours is the capture group around
 * the secret (so the key's name stays readable) and the keywords (gitleaks'
 * prefilter). Also ours: the vendors' documented example keys, which no rule
 * reports (gitleaks knows AWS's example key id only, and its generic rule
 * would take Azurite's key for a secret).
 */
import type { VendoredRule } from './rule-types.ts'

/**
 * Keys vendors publish as examples, which stay as they are wherever they
 * appear: AWS's example access key id and secret access key (AWS's IAM
 * documentation) and the account key of Azurite, Azure's storage emulator
 * (Microsoft's Azurite documentation). Split here so the file holds none
 * whole for a scanner to trip on.
 */
export const DOCUMENTED_EXAMPLE_KEYS: readonly string[] = [
  `AKIAIOSFODNN7${'EXAMPLE'}`,
  `wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLEKEY'}`,
  `Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/${'K1SZFPTOtr/KBHBeksoGMGw=='}`,
]

/** detect-secrets' RESERVED_CHARACTERS and SUB_DELIMITER_CHARACTERS (RFC 3986 §2.2), which neither user nor password may hold. */
const URL_DELIMITERS = String.raw`:/?#\[\]@!$&'()*+,;=`

/**
 * secretlint-rule-basicauth's placeholders (BUILTIN_IGNORED_PATTERNS, isVariableLikeString,
 * isLikelyRealPassword), tried on the password: shorter than 4, one character repeated, a
 * template variable, or holding one of its placeholder words (less `${password}` and
 * `${username}`, which hold `{password}` and `{username}` and so pass with them).
 *
 * "One character repeated" is a backreference upstream (`^(.)\1{3,}$`), which RE2 has
 * not: it is spelt out here for the printable ASCII characters, so a password of one
 * other character repeated is redacted (the safe side).
 */
const ONE_CHARACTER_REPEATED = `^(?:${Array.from({ length: 0x7f - 0x21 }, (_, i) => {
  const c = String.fromCharCode(0x21 + i)
  return `${/[0-9A-Za-z]/.test(c) ? c : `\\x${(0x21 + i).toString(16)}`}{4,}`
}).join('|')})$`

const PLACEHOLDER_PASSWORDS = [
  String.raw`^[\s\S]{1,3}$`,
  ONE_CHARACTER_REPEATED,
  String.raw`\$\{[^}]{1,50}\}|\{\{[^}]{1,50}\}\}|\{[^}]{1,50}\}|%[A-Z_]{1,30}%|\$[A-Z_]{1,30}`,
].map((source) => ({ source, flags: '' }))
const PLACEHOLDER_WORDS = [
  'localhost',
  '127.0.0.1',
  'password',
  'mypassword',
  'myusername',
  '{password}',
  '{{password}}',
  '{username}',
  '{{username}}',
  'YOUR_PASSWORD',
  'YOUR_USERNAME',
  'REPLACE_WITH_PASSWORD',
  'REPLACE_WITH_USERNAME',
].map((word) => word.toLowerCase())

export const EXTRA_RULES: readonly VendoredRule[] = [
  {
    // secretlint-rule-aws, reportAWSSecretAccessKey (only `AWS?_SECRET_ACCESS_KEY=` and its spellings).
    id: 'aws-secret-access-key',
    regex: {
      source: String.raw`["']?(?:AWS|aws|Aws)?_?(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)["']?\s*(?::|=>|=)\s*["']?([A-Za-z0-9/\+=]{40})["']?\b`,
      flags: '',
    },
    secretGroup: 1,
    entropy: 0,
    keywords: ['secret'],
    path: null,
    multiline: false,
    allowlists: [],
  },
  {
    // detect-secrets AzureStorageKeyDetector.
    id: 'azure-storage-account-key',
    regex: { source: String.raw`AccountKey=([a-zA-Z0-9+\/=]{88})`, flags: '' },
    secretGroup: 1,
    entropy: 0,
    keywords: ['accountkey='],
    path: null,
    multiline: false,
    allowlists: [],
  },
  {
    // detect-secrets BasicAuthDetector: `://user:password@`, neither part holding a delimiter or a space.
    id: 'url-password',
    regex: { source: String.raw`://[^${URL_DELIMITERS}\s]+:([^${URL_DELIMITERS}\s]+)@`, flags: '' },
    secretGroup: 1,
    entropy: 0,
    keywords: ['://'],
    path: null,
    multiline: false,
    allowlists: [
      { target: 'secret', condition: 'OR', regexes: PLACEHOLDER_PASSWORDS, paths: [], stopwords: PLACEHOLDER_WORDS },
    ],
  },
]
