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
 * Each keeps its upstream pattern (the URL one widened, see below); what is
 * ours is the capture group around the secret (so the key's name stays
 * readable) and the keywords (gitleaks' prefilter). Also ours: the vendors'
 * documented example keys, which no rule reports (gitleaks knows AWS's
 * example key id only, and its generic rule would take Azurite's key for a
 * secret), and the rules of own-rules.ts (issue 27), which follow these.
 */
import { OWN_RULES } from './own-rules.ts'
import type { VendoredRule } from './rule-types.ts'

/**
 * Keys vendors publish as examples, which stay as they are wherever they
 * appear: AWS's example access key id and secret access key (AWS's IAM
 * documentation), the account key of Azurite, Azure's storage emulator
 * (Microsoft's Azurite documentation), the secret keys Flask's
 * documentation shows (docs/config.rst, docs/quickstart.rst), and the
 * bcrypt hashes Laravel's UserFactory has given its users over the years
 * (checked: of `password` and `secret`; the salt and hash, as the
 * password-hash rule takes them). Split here so the file holds none whole
 * for a scanner to trip on.
 */
export const DOCUMENTED_EXAMPLE_KEYS: readonly string[] = [
  `AKIAIOSFODNN7${'EXAMPLE'}`,
  `wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLEKEY'}`,
  `Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/${'K1SZFPTOtr/KBHBeksoGMGw=='}`,
  `192b9bdd22ab9ed4d12e236c78afcb9a${'393ec15f71bbf5dc987d54727823bcbf'}`,
  `5f352379324c2246${'3451387a0aec5d2f'}`,
  String.raw`_5#y2L"F4Q8z${''}\n\xec]/`,
  `92IXUNpkjO0rOQ5byMi.Ye4oKoEa3Ro9l${'lC/.og/at2.uheWG/igi'}`,
  `TKh8H1.PfQx37YgCzwiKb.KjNyWgaHb9c${'bcoQgdIVFlYg7B77UdFm'}`,
  `Z/vhVO3e.UXKaG11EWgxc.EL7uej3Pi1M${'0Pq0orF5cbFGtyVh0V3C'}`,
  `oPCcCpaPQ69KQ1fdrAIL0eptYCcG/s/Nm${'QZizJfVdB.QOXUn5mGE6'}`,
]

/** The catch-all rules: where one of them and a specific rule find the same secret, the specific rule's kind names it. */
export const CATCH_ALL_KINDS: readonly string[] = ['generic-api-key', 'password-assignment']

/** A URL's user name, or each half of one that is an e-mail address: none of the URL's delimiters, quotes, brackets or spaces. */
const URL_USER = String.raw`[^ \t\r\n:/?#\[\]"'<>()@]{1,128}`

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
    // detect-secrets BasicAuthDetector, widened (issue 27): the user may be an e-mail address or empty (`redis://:pw@`),
    // and the password may hold `@`, `#`, `!`, `:` and the like, as .git-credentials writes them; the last `@` before
    // the host ends it.
    // Placeholders, the user's own name and hosts kept for examples or on this machine are passed over (filters.ts).
    id: 'url-password',
    regex: {
      source: String.raw`://(?:(?:${URL_USER}(?:@${URL_USER})?)?):([^ \t\r\n/"'<>]{1,256})@[^ \t\r\n/?#"'<>@]{1,253}`,
      flags: '',
    },
    secretGroup: 1,
    entropy: 0,
    keywords: ['://'],
    path: null,
    multiline: false,
    allowlists: [],
  },
  ...OWN_RULES,
]
