import { describe, expect, it } from 'bun:test'
import { parseExamplesFile } from '../../../core/repo-files/examples-file.ts'
import { formatExamplesMergeProblem, mergeLabels } from '../../../core/repo-files/examples-merge.ts'

const YML = '.hyperhive/review-classifier.examples.yml'
const JSON_PATH = '.hyperhive/review-classifier.examples.json'

const SOURCE = `# Labelled by the team; keep this comment.
examples:
  # The scheduler PR.
  - pr: 12
    expect:
      datetime: no-match # naive timestamps
      no-ads: not-applicable
    note: Drops tzinfo.
  - pr: 31
    expect:
      datetime: match
`

function read(path: string, text: string) {
  const parsed = parseExamplesFile(path, text)
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error))
  return parsed.value
}

describe('mergeLabels', () => {
  it('merges by PR number: an existing PR gets its keys set, a new PR is appended, comments kept', () => {
    const merged = mergeLabels({ path: YML, text: SOURCE }, [
      { pr: 12, expect: { datetime: 'match', tested: 'no-match' } },
      { pr: 40, expect: { 'no-ads': 'no-match' } },
    ])
    if (!merged.ok) throw new Error(formatExamplesMergeProblem(merged.error))
    expect(merged.value.path).toBe(YML)
    const { text } = merged.value
    for (const comment of ['# Labelled by the team; keep this comment.', '# The scheduler PR.']) {
      expect(text).toContain(comment)
    }
    expect(read(YML, text)).toEqual([
      { pr: 12, expect: { datetime: 'match', 'no-ads': 'not-applicable', tested: 'no-match' }, note: 'Drops tzinfo.' },
      { pr: 31, expect: { datetime: 'match' } },
      { pr: 40, expect: { 'no-ads': 'no-match' } },
    ])
  })

  it('writes a new YAML file when the repo has none', () => {
    const merged = mergeLabels(null, [{ pr: 3, expect: { datetime: 'match' } }])
    if (!merged.ok) throw new Error(formatExamplesMergeProblem(merged.error))
    expect(merged.value.path).toBe(YML)
    expect(merged.value.text.startsWith('# Labelled PRs for the review classifier')).toBe(true)
    expect(read(YML, merged.value.text)).toEqual([{ pr: 3, expect: { datetime: 'match' } }])
  })

  it('keeps a JSON file JSON', () => {
    const source = JSON.stringify({ examples: [{ pr: 1, expect: { a: 'match' } }] })
    const merged = mergeLabels({ path: JSON_PATH, text: source }, [{ pr: 1, expect: { a: 'no-match' } }])
    if (!merged.ok) throw new Error(formatExamplesMergeProblem(merged.error))
    expect(read(JSON_PATH, merged.value.text)).toEqual([{ pr: 1, expect: { a: 'no-match' } }])
  })

  it('keeps "__proto__" a name', () => {
    const merged = mergeLabels({ path: YML, text: SOURCE }, [{ pr: 31, expect: JSON.parse('{"__proto__":"match"}') }])
    if (!merged.ok) throw new Error(formatExamplesMergeProblem(merged.error))
    const pr31 = read(YML, merged.value.text)[1]
    expect(pr31 !== undefined && Object.hasOwn(pr31.expect, '__proto__')).toBe(true)
  })

  it('refuses bad labels with the file’s words', () => {
    const merged = mergeLabels({ path: YML, text: SOURCE }, [{ pr: 12, expect: JSON.parse('{"datetime":"maybe"}') }])
    expect(merged.ok).toBe(false)
    if (merged.ok) return
    expect(merged.error.kind).toBe('labels-invalid')
    expect(formatExamplesMergeProblem(merged.error)).toContain(
      'labels: examples[0] (pr 12): expect "datetime" must be "match", "no-match" or "not-applicable"',
    )
  })

  it('refuses a result the file’s checks refuse: more than 10 labels on one PR', () => {
    const expectMany = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`rule-${i}`, 'match' as const]))
    const merged = mergeLabels({ path: YML, text: SOURCE }, [{ pr: 12, expect: expectMany }])
    expect(merged.ok).toBe(false)
    if (merged.ok) return
    expect(merged.error.kind).toBe('result-invalid')
    expect(formatExamplesMergeProblem(merged.error)).toContain('expect has 12 labels; at most 10 are allowed')
  })

  it('refuses to merge into a file that does not load', () => {
    const merged = mergeLabels({ path: YML, text: 'examples: 3\n' }, [{ pr: 1, expect: { a: 'match' } }])
    expect(merged.ok ? null : merged.error.kind).toBe('source-invalid')
  })
})
