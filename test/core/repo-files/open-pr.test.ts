import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { branchName, commitAuthor, compareUrl, noreplyAddress } from '../../../core/repo-files/open-pr.ts'

/** git check-ref-format's rules for one branch name, enough to catch a bad sanitiser. */
function isValidGitBranch(name: string): boolean {
  if (name.length === 0 || name.endsWith('/') || name.endsWith('.') || name.includes('//') || name.includes('..'))
    return false
  if (name.includes('@{') || name === '@' || /[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'))
}

describe('branchName', () => {
  const cases: { login: string; branch: string }[] = [
    { login: 'alice', branch: 'review-classifier/alice-0a1b2c3d' },
    { login: 'Alice.Smith_2', branch: 'review-classifier/Alice.Smith_2-0a1b2c3d' },
    { login: 'bob@example.com', branch: 'review-classifier/bob-example.com-0a1b2c3d' },
    { login: 'a..b', branch: 'review-classifier/a.b-0a1b2c3d' },
    { login: '.hidden', branch: 'review-classifier/hidden-0a1b2c3d' },
    { login: 'x y/z~^:?*[\\', branch: 'review-classifier/x-y-z--------0a1b2c3d' },
    { login: 'name@{0}', branch: 'review-classifier/name--0--0a1b2c3d' },
    { login: 'jürgen', branch: 'review-classifier/j-rgen-0a1b2c3d' },
    { login: '', branch: 'review-classifier/user-0a1b2c3d' },
    { login: '...', branch: 'review-classifier/user-0a1b2c3d' },
  ]
  for (const { login, branch } of cases) {
    it(`makes ${branch} for ${JSON.stringify(login)}`, () => {
      expect(branchName(login, '0a1b2c3d')).toBe(branch)
    })
  }

  it('stays within 100 characters for a very long login', () => {
    const branch = branchName('a'.repeat(300), 'ffffffff')
    expect(branch).toBe(`review-classifier/${'a'.repeat(73)}-ffffffff`)
    expect(branch.length).toBe(100)
  })

  it('always makes a valid git branch name', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), fc.stringMatching(/^[0-9a-f]{8}$/), (login, hex) => {
        const branch = branchName(login, hex)
        expect(isValidGitBranch(branch)).toBe(true)
        expect(branch.length).toBeLessThanOrEqual(100)
        expect(branch.endsWith(`-${hex}`)).toBe(true)
      }),
    )
  })

  for (const hex of ['0A1B2C3D', '0a1b2c3', '0a1b2c3d4', 'ghijklmn', '']) {
    it(`throws for the hex ${JSON.stringify(hex)}, a bug in the caller`, () => {
      expect(() => branchName('alice', hex)).toThrow(RangeError)
    })
  }
})

describe('noreplyAddress', () => {
  it('lowercases the login and puts it at noreply.<domain>', () => {
    expect(noreplyAddress('Alice.Smith', 'forge.example')).toBe('alice.smith@noreply.forge.example')
    expect(noreplyAddress('review-classifier', 'forge.example')).toBe('review-classifier@noreply.forge.example')
  })

  it('drops a port from the domain', () => {
    expect(noreplyAddress('bob', 'localhost:3000')).toBe('bob@noreply.localhost')
  })
})

describe('commitAuthor', () => {
  const cases: { title: string; fullName: string | null | undefined; name: string }[] = [
    { title: 'the full name', fullName: 'Alice Smith', name: 'Alice Smith' },
    { title: 'the login for an empty full name', fullName: '', name: 'Alice' },
    { title: 'the login for a blank full name', fullName: '   ', name: 'Alice' },
    { title: 'the login for a null full name', fullName: null, name: 'Alice' },
    { title: 'the login with no full name', fullName: undefined, name: 'Alice' },
  ]
  for (const { title, fullName, name } of cases) {
    it(`names ${title}, with the noreply address`, () => {
      expect(commitAuthor({ login: 'Alice', full_name: fullName }, 'forge.example')).toEqual({
        name,
        email: 'alice@noreply.forge.example',
      })
    })
  }
})

describe('compareUrl', () => {
  it('builds the compare page from the root URL', () => {
    expect(compareUrl('https://forge.example/', 'acme', 'widgets', 'main', 'review-classifier/alice-0a1b2c3d')).toBe(
      'https://forge.example/acme/widgets/compare/main...review-classifier/alice-0a1b2c3d',
    )
  })

  it('adds the slash a root URL without one lacks, keeping a sub-path', () => {
    expect(compareUrl('https://example.com/forge', 'acme', 'widgets', 'main', 'b')).toBe(
      'https://example.com/forge/acme/widgets/compare/main...b',
    )
  })

  it('escapes owner, repo and each branch segment, but not the slashes between segments', () => {
    expect(compareUrl('https://forge.example/', 'ac me', 'wid#gets', 'release/v1 #2', 'feat/a%b?c')).toBe(
      'https://forge.example/ac%20me/wid%23gets/compare/release/v1%20%232...feat/a%25b%3Fc',
    )
  })
})
