import { describe, expect, it } from 'bun:test'
import { translatePathPattern } from '../../../core/repo-files/path-glob.ts'
import { changedFiles, compilePaths, outOfScopeNames, ruleScope, runScopes } from '../../../core/run/scope.ts'
import { aClassification } from '../../support/builders.ts'

/** Whether `path` is in the scope of `patterns`. */
function inScope(patterns: string[], path: string): boolean {
  return compilePaths(patterns)(path)
}

function brokenBecause(pattern: string): string {
  const translated = translatePathPattern(pattern)
  if (translated.ok) throw new Error(`${pattern} translated`)
  return translated.error
}

function section(before: string | null, after: string | null, extra: string[] = []): string {
  const a = before ?? after ?? ''
  const b = after ?? before ?? ''
  return [
    `diff --git a/${a} b/${b}`,
    ...extra,
    `--- ${before === null ? '/dev/null' : `a/${before}`}`,
    `+++ ${after === null ? '/dev/null' : `b/${after}`}`,
    '@@ -1 +1 @@',
    '-x',
    '+y',
    '',
  ].join('\n')
}

describe('paths patterns, as the issue names them', () => {
  it('a pattern without "/" matches a name at any depth', () => {
    expect(inScope(['*.sql'], 'a.sql')).toBe(true)
    expect(inScope(['*.sql'], 'db/migrations/001.sql')).toBe(true)
    expect(inScope(['*.sql'], 'db/a.sqlx')).toBe(false)
    // A folder's name at any depth: every file under it.
    expect(inScope(['migrations'], 'db/migrations/001.sql')).toBe(true)
    expect(inScope(['migrations'], 'db/migrations-old/001.sql')).toBe(false)
  })

  it('a pattern with "/" matches from the repo root, a leading one too', () => {
    expect(inScope(['db/*.sql'], 'db/a.sql')).toBe(true)
    expect(inScope(['db/*.sql'], 'app/db/a.sql')).toBe(false)
    expect(inScope(['/Makefile'], 'Makefile')).toBe(true)
    expect(inScope(['/Makefile'], 'tools/Makefile')).toBe(false)
    expect(inScope(['docs/'], 'docs/a/b.md')).toBe(true)
    expect(inScope(['docs/'], 'docs')).toBe(false)
  })

  it('"*" stays in one folder, "**" spans folders', () => {
    expect(inScope(['src/*.ts'], 'src/a.ts')).toBe(true)
    expect(inScope(['src/*.ts'], 'src/deep/a.ts')).toBe(false)
    expect(inScope(['src/**/*.ts'], 'src/a.ts')).toBe(true)
    expect(inScope(['src/**/*.ts'], 'src/deep/er/a.ts')).toBe(true)
    expect(inScope(['db/migrations/**'], 'db/migrations/x/y.sql')).toBe(true)
    expect(inScope(['db/migrations/**'], 'db/migrations.sql')).toBe(false)
    expect(inScope(['**/test/**'], 'a/test/b.ts')).toBe(true)
    expect(inScope(['**'], 'anything/at/all')).toBe(true)
    // `**` inside a name is a plain `*`.
    expect(inScope(['a**b'], 'axxb')).toBe(true)
    expect(inScope(['/a**b'], 'ax/xb')).toBe(false)
  })

  it('"{a,b}", "[…]" and "?" work; "[!…]" and "[^…]" negate', () => {
    expect(inScope(['*.{ts,tsx}'], 'ui/a.tsx')).toBe(true)
    expect(inScope(['*.{ts,tsx}'], 'ui/a.js')).toBe(false)
    expect(inScope(['{src,lib}/**/{a,b{c,d}}.ts'], 'lib/x/bd.ts')).toBe(true)
    expect(inScope(['*.[ch]'], 'x/y.c')).toBe(true)
    expect(inScope(['*.[ch]'], 'x/y.o')).toBe(false)
    expect(inScope(['v[0-9].md'], 'v7.md')).toBe(true)
    expect(inScope(['[!x]*.ts'], 'x1.ts')).toBe(false)
    expect(inScope(['[!x]*.ts'], 'y1.ts')).toBe(true)
    expect(inScope(['[^x]*.ts'], 'y1.ts')).toBe(true)
    expect(inScope(['[]x]'], ']')).toBe(true)
    expect(inScope(['a?c'], 'abc')).toBe(true)
    expect(inScope(['a?c'], 'a/c')).toBe(false)
    expect(inScope(['\\*.md'], '*.md')).toBe(true)
    expect(inScope(['\\*.md'], 'a.md')).toBe(false)
  })

  it('is case-sensitive', () => {
    expect(inScope(['*.SQL'], 'a.sql')).toBe(false)
    expect(inScope(['README.md'], 'readme.md')).toBe(false)
  })

  it('"!" excludes: in scope when some pattern matches and no "!" pattern does', () => {
    const paths = ['db/migrations/**', '!db/migrations/legacy/**']
    expect(inScope(paths, 'db/migrations/002.sql')).toBe(true)
    expect(inScope(paths, 'db/migrations/legacy/001.sql')).toBe(false)
    expect(inScope(paths, 'src/app.ts')).toBe(false)
    // Order doesn't matter: an exclusion wins wherever it stands.
    expect(inScope(['!*.md', '**'], 'README.md')).toBe(false)
    // "\!" is a literal "!".
    expect(inScope(['\\!important.txt'], '!important.txt')).toBe(true)
  })

  it('a list of "!" patterns alone puts every other file in scope', () => {
    expect(inScope(['!*.md', '!docs/'], 'src/a.ts')).toBe(true)
    expect(inScope(['!*.md', '!docs/'], 'docs/a.ts')).toBe(false)
    expect(inScope(['!*.md', '!docs/'], 'a/b.md')).toBe(false)
  })

  it('matches unicode names by character, and dot files like any other', () => {
    expect(inScope(['**/café/*'], 'x/café/y')).toBe(true)
    expect(inScope(['?.txt'], '😀.txt')).toBe(true)
    expect(inScope(['[é-ê].txt'], 'ê.txt')).toBe(true)
    expect(inScope(['*.yml'], '.github/workflows/ci.yml')).toBe(true)
    expect(inScope(['.env*'], 'app/.env.local')).toBe(true)
  })

  it('treats regex syntax in a pattern as literal text', () => {
    expect(inScope(['a+b(c)|d$.txt'], 'a+b(c)|d$.txt')).toBe(true)
    expect(inScope(['a+b.txt'], 'aab.txt')).toBe(false)
    expect(inScope(['a.b'], 'axb')).toBe(false)
  })

  it('matches a path with a newline in it (git quotes it in a diff) without treating it as two', () => {
    expect(inScope(['*.md'], 'evil\nname.md')).toBe(true)
    expect(inScope(['evil'], 'evil\nname.md')).toBe(false)
  })
})

describe('broken patterns', () => {
  it('names what is wrong, so the rules file can name the pattern', () => {
    expect(brokenBecause('')).toBe('is empty')
    expect(brokenBecause('   ')).toBe('is empty')
    expect(brokenBecause('!')).toContain('excludes nothing')
    expect(brokenBecause('/')).toContain('repo root')
    expect(brokenBecause('src/[a-')).toBe('has an unclosed "["')
    expect(brokenBecause('src/[')).toBe('has an unclosed "["')
    expect(brokenBecause('[z-a]')).toBe('has the range "z-a" out of order')
    expect(brokenBecause('{a,b')).toBe('has an unclosed "{"')
    expect(brokenBecause('a\\')).toBe('ends with a lone "\\"')
    expect(brokenBecause('a//b')).toContain('empty folder name')
    expect(brokenBecause('[a/b]')).toContain('"/" inside')
    expect(brokenBecause('[+-0]')).toContain('"/" inside')
    expect(brokenBecause('a\u0000b')).toBe('holds a control character')
  })

  it('refuses "." and ".." parts: no path in a diff has one, so the pattern could never match', () => {
    expect(brokenBecause('../secrets/*')).toContain('".."')
    expect(brokenBecause('src/../x')).toContain('".."')
    expect(brokenBecause('./src/*')).toContain('"."')
    expect(translatePathPattern('..foo').ok).toBe(true)
  })
})

describe('hostile patterns and paths', () => {
  it('matches in linear time: many stars against a long name that almost matches', () => {
    // A backtracking matcher takes minutes here (see path-glob.ts); RE2 doesn't backtrack.
    const pattern = `${'*a'.repeat(40)}*b`
    expect(pattern.length).toBeLessThanOrEqual(200)
    expect(inScope([pattern], 'a'.repeat(100_000))).toBe(false)
    expect(inScope(['**/**/**/**/**/**/**/**/x'], `${'d/'.repeat(20_000)}y`)).toBe(false)
  })

  it('takes deeply nested braces and a long alternation', () => {
    const nested = `${'{a,'.repeat(60)}b${'}'.repeat(60)}`
    expect(inScope([nested], 'b')).toBe(true)
    const alternation = `{${Array.from({ length: 60 }, (_, i) => `f${i}`).join(',')}}`
    expect(inScope([alternation], 'src/f59')).toBe(true)
  })
})

describe('changedFiles', () => {
  it('lists every file, with the old path of a renamed or deleted one', () => {
    const diff = [
      section('src/a.ts', 'src/a.ts'),
      section(null, 'db/new.sql', ['new file mode 100644']),
      section('db/old.sql', null, ['deleted file mode 100644']),
      'diff --git a/old/name.ts b/new/name.ts\nsimilarity index 100%\nrename from old/name.ts\nrename to new/name.ts\n',
      'diff --git a/bin.png b/bin.png\nindex 1..2 100644\nBinary files a/bin.png and b/bin.png differ\n',
    ].join('')
    expect(changedFiles(diff)).toEqual([
      { path: 'src/a.ts', oldPath: null },
      { path: 'db/new.sql', oldPath: null },
      { path: 'db/old.sql', oldPath: null },
      { path: 'new/name.ts', oldPath: 'old/name.ts' },
      { path: 'bin.png', oldPath: null },
    ])
  })

  it("reads git's quoted paths", () => {
    const diff =
      'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"\n--- "a/caf\\303\\251.txt"\n+++ "b/caf\\303\\251.txt"\n@@ -1 +1 @@\n-a\n+b\n'
    expect(changedFiles(diff)).toEqual([{ path: 'café.txt', oldPath: null }])
  })

  it('is empty for an empty diff', () => {
    expect(changedFiles('')).toEqual([])
  })
})

describe('ruleScope and runScopes', () => {
  const moved =
    'diff --git a/db/migrations/1.sql b/archive/1.sql\nrename from db/migrations/1.sql\nrename to archive/1.sql\n'

  it('a renamed file is in scope by its old path too', () => {
    const scope = ruleScope({ paths: ['db/migrations/**'] }, changedFiles(moved))
    expect(scope).toEqual({ inScope: true, files: ['archive/1.sql'] })
  })

  it('a deleted file is in scope by its path', () => {
    const scope = ruleScope({ paths: ['*.sql'] }, changedFiles(section('db/old.sql', null)))
    expect(scope).toEqual({ inScope: true, files: ['db/old.sql'] })
  })

  it('a rule without paths is about every file and names none; one with paths names its files', () => {
    const diff = section('src/a.ts', 'src/a.ts') + section('db/x.sql', 'db/x.sql')
    const scopes = runScopes(
      [
        aClassification({ name: 'all' }),
        aClassification({ name: 'sql', paths: ['*.sql'] }),
        aClassification({ name: 'docs', paths: ['docs/**'] }),
      ],
      diff,
    )
    expect(scopes.get('all')).toEqual({ inScope: true, files: null })
    expect(scopes.get('sql')).toEqual({ inScope: true, files: ['db/x.sql'] })
    expect(scopes.get('docs')).toEqual({ inScope: false, files: [] })
    expect(outOfScopeNames([...[aClassification({ name: 'docs', paths: ['docs/**'] })]], diff)).toEqual(
      new Set(['docs']),
    )
  })

  it('an empty diff leaves every scoped rule out of scope and every unscoped one in', () => {
    const scopes = runScopes([aClassification({ name: 'all' }), aClassification({ name: 'sql', paths: ['*.sql'] })], '')
    expect(scopes.get('all')?.inScope).toBe(true)
    expect(scopes.get('sql')?.inScope).toBe(false)
  })
})
