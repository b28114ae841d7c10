/**
 * A replay of realistic PRs for the scoping benchmark (bench/scope.ts): a
 * seeded stream of PRs over the areas of a typical service repo (code, its
 * tests, docs, migrations, dependencies, CI), each touching one or two areas
 * the way real PRs cluster, with the hunks of synthetic-pr.ts; and the ten
 * rules of `someRules` scoped to the files each is about, as a team would
 * scope them (docs/behaviour.md, "Scoping a rule to its files").
 */
import type { Classification } from '../../core/wire/types.ts'
import { fileDiff, pick, type SyntheticPr, seededRandom, someRules } from './synthetic-pr.ts'

/** The areas of the repo, with how often a PR touches each (weights, not shares) and how its files are named. */
const AREAS: ReadonlyArray<{ weight: number; files: (random: () => number, n: number) => string }> = [
  {
    weight: 30,
    files: (random, n) => `src/${pick(random, ['billing', 'orders', 'api', 'time', 'storage'])}/file${n}.ts`,
  },
  { weight: 18, files: (random, n) => `test/${pick(random, ['billing', 'orders', 'api'])}/file${n}.test.ts` },
  { weight: 14, files: (random, n) => `docs/${pick(random, ['guide', 'api', 'ops'])}/page${n}.md` },
  { weight: 8, files: (_random, n) => `db/migrations/2026${String(n).padStart(4, '0')}_change.sql` },
  { weight: 8, files: (random) => pick(random, ['package.json', 'package-lock.json']) },
  { weight: 6, files: (random) => `.github/workflows/${pick(random, ['ci', 'release'])}.yml` },
  { weight: 6, files: (_random, n) => `README${n % 3 === 0 ? '' : `-part${n % 3}`}.md` },
  { weight: 10, files: (random, n) => `src/billing/ledger/file${n}${pick(random, ['.ts', '.ts', '.sql'])}` },
]

const TOTAL_WEIGHT = AREAS.reduce((sum, area) => sum + area.weight, 0)

function pickArea(random: () => number): (typeof AREAS)[number] {
  let roll = random() * TOTAL_WEIGHT
  for (const area of AREAS) {
    roll -= area.weight
    if (roll < 0) return area
  }
  return AREAS[0] as (typeof AREAS)[number]
}

/** `count` PRs, each of one or two areas and one to six files of about 2 KB of hunks each. */
export function aScopedReplay(count: number, seed = 20261204): SyntheticPr[] {
  const random = seededRandom(seed)
  let fileNumber = 0
  return Array.from({ length: count }, (_, index) => {
    const areas = [pickArea(random), ...(random() < 0.4 ? [pickArea(random)] : [])]
    const paths = new Set<string>()
    const files = 1 + Math.floor(random() * 6)
    for (let i = 0; i < files; i += 1) {
      fileNumber += 1
      paths.add(pick(random, areas).files(random, fileNumber))
    }
    return {
      title: `Change ${index + 1}`,
      commits: [{ message: `Change ${index + 1}\n\nWhat the change does.` }],
      diff: [...paths].map((path) => fileDiff(random, path, 2_000)).join(''),
    }
  })
}

/** The paths each of the ten rules is about; `no-secrets` keeps none: it is about every file. */
const SCOPES: Readonly<Record<string, readonly string[]>> = {
  'utc-timestamps': ['*.ts', '*.sql', '!test/**'],
  'tests-for-behaviour': ['src/**'],
  'no-console-logging': ['*.ts', '!test/**'],
  'bounded-retries': ['src/**/*.ts'],
  'no-breaking-api': ['src/api/**'],
  'migrations-reversible': ['db/migrations/**'],
  'money-as-integers': ['src/billing/**'],
  'errors-have-codes': ['src/**/*.ts'],
  'no-new-dependencies': ['package.json', 'package-lock.json'],
}

/** What `no-secrets` is about when every rule is scoped: every file but the docs (a list of `!` patterns alone). */
const NO_SECRETS_BUT_DOCS = ['!docs/**', '!*.md']

/** `someRules(count)`, each with the paths a team would give it; `everyRule`: `no-secrets` skips the docs too. */
export function someScopedRules(count: number, everyRule = false): Classification[] {
  return someRules(count).map((rule) => {
    const paths = SCOPES[rule.name] ?? (everyRule && rule.name === 'no-secrets' ? NO_SECRETS_BUT_DOCS : undefined)
    return paths === undefined ? rule : { ...rule, paths: [...paths] }
  })
}
