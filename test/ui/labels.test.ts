/**
 * The try-out page's labels outside a browser (ui/labels.ts): setting and
 * clearing a cell's label, what "open a PR" sends of them as the POST's
 * `labels` and what they change in the examples file, and the stored
 * bench's schema taking an entry kept before labels were.
 */
import { describe, expect, it } from 'bun:test'
import { EXAMPLES_YML_PATH } from '../../core/repo-files/examples-file.ts'
import { mergedExamples, validateLabels } from '../../core/repo-files/examples-merge.ts'
import { fitsSchema } from '../../core/wire/decode.ts'
import { StoredBenchSchema } from '../../core/wire/page-schemas.ts'
import type { Example } from '../../core/wire/types.ts'
import {
  changesFile,
  fileLabelAt,
  labelAt,
  labelChanges,
  labelsProblem,
  labelsToSend,
  NEW_EXAMPLES_PATH,
  type PageLabel,
  withLabel,
} from '../../ui/labels.ts'

const WIDGETS = 'acme/widgets'

function label(pr: number, name: string, verdict: PageLabel['verdict'], repo = WIDGETS): PageLabel {
  return { repo, pr, name, verdict }
}

describe("a cell's label", () => {
  it('is set, replaced where it stands, and cleared, one per repo, PR and rule', () => {
    const cell = { repo: WIDGETS, pr: 6, name: 'datetime' }
    let labels = withLabel([], cell, 'match')
    labels = withLabel(labels, { ...cell, name: 'no-ads' }, 'not-applicable')
    labels = withLabel(labels, { ...cell, repo: 'acme/gadgets' }, 'no-match')
    labels = withLabel(labels, cell, 'no-match')
    expect(labels).toEqual([
      label(6, 'datetime', 'no-match'),
      label(6, 'no-ads', 'not-applicable'),
      label(6, 'datetime', 'no-match', 'acme/gadgets'),
    ])
    expect(labelAt(labels, cell)).toBe('no-match')
    labels = withLabel(labels, cell, null)
    expect(labelAt(labels, cell)).toBeNull()
    expect(labels).toHaveLength(2)
    // Clearing a cell with no label leaves every other label.
    expect(withLabel(labels, { repo: WIDGETS, pr: 1, name: 'datetime' }, null)).toEqual(labels)
  })

  it("reads the examples file's label by own key only", () => {
    const examples: Example[] = [{ pr: 4, expect: { datetime: 'match' } }]
    expect(fileLabelAt(examples, 4, 'datetime')).toBe('match')
    expect(fileLabelAt(examples, 4, 'toString')).toBeNull()
    expect(fileLabelAt(examples, 5, 'datetime')).toBeNull()
  })
})

describe('the labels open a PR sends', () => {
  const labels = [
    label(6, 'datetime', 'no-match'),
    label(2, 'datetime', 'match'),
    label(6, 'old-name', 'match'),
    label(6, 'no-ads', 'not-applicable'),
    label(2, 'datetime', 'no-match', 'acme/gadgets'),
    label(9, '__proto__', 'match'),
  ]

  it("sends the repo's labels naming a rule of the draft or the repo, by PR, and names the others left out", () => {
    const sent = labelsToSend(labels, WIDGETS, ['datetime', 'no-ads', '__proto__'])
    expect(sent.labels).toEqual([
      { pr: 2, expect: { datetime: 'match' } },
      { pr: 6, expect: { datetime: 'no-match', 'no-ads': 'not-applicable' } },
      { pr: 9, expect: JSON.parse('{"__proto__":"match"}') },
    ])
    expect(Object.keys(sent.labels[2]?.expect ?? {})).toEqual(['__proto__'])
    expect(sent.leftOut).toEqual([label(6, 'old-name', 'match')])
    // In the body's shape the controller checks.
    expect(validateLabels(sent.labels).ok).toBe(true)
    expect(labelsToSend(labels, 'acme/none', ['datetime'])).toEqual({ labels: [], leftOut: [] })
  })

  it('says what the labels change in the file, as the controller merges them by PR number', () => {
    const examples: Example[] = [
      { pr: 4, expect: { datetime: 'match' }, note: 'Kept.' },
      { pr: 2, expect: { datetime: 'match', 'no-ads': 'no-match' } },
    ]
    const sent = labelsToSend(labels, WIDGETS, ['datetime', 'no-ads']).labels
    const changes = labelChanges(sent, examples)
    expect(changes).toEqual([
      { pr: 2, added: false, labels: [{ name: 'datetime', verdict: 'match', was: 'match' }] },
      {
        pr: 6,
        added: true,
        labels: [
          { name: 'datetime', verdict: 'no-match', was: null },
          { name: 'no-ads', verdict: 'not-applicable', was: null },
        ],
      },
    ])
    expect(changesFile(changes)).toBe(true)
    expect(changesFile(labelChanges([{ pr: 2, expect: { datetime: 'match' } }], examples))).toBe(false)
    // The PRs it calls new are the ones the controller's merge puts at the end.
    expect(mergedExamples(examples, sent).map((example) => example.pr)).toEqual([4, 2, 6])
  })

  it("refuses what would break the examples file's bounds, in its words", () => {
    const full: Example[] = Array.from({ length: 50 }, (_, index) => ({ pr: index + 1, expect: { a: 'match' } }))
    expect(labelsProblem(labelChanges([{ pr: 3, expect: { a: 'no-match' } }], full), full)).toBeNull()
    expect(labelsProblem(labelChanges([{ pr: 51, expect: { a: 'match' } }], full), full)).toBe(
      'the examples file would have 51 examples; at most 50 are allowed',
    )
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`r${index}`, 'match' as const]))
    const crowded: Example[] = [{ pr: 7, expect: nine }]
    expect(labelsProblem(labelChanges([{ pr: 7, expect: { r0: 'no-match' } }], crowded), crowded)).toBeNull()
    expect(labelsProblem(labelChanges([{ pr: 7, expect: { x: 'match', y: 'match' } }], crowded), crowded)).toBe(
      'pr 7: expect would have 11 labels; at most 10 are allowed',
    )
  })

  it('names the examples file core writes when there is none', () => {
    expect(NEW_EXAMPLES_PATH).toBe(EXAMPLES_YML_PATH)
  })
})

describe("the bench's stored entry", () => {
  const before = { pr: '4', draft: [], baseline: [], attempts: [] }

  it('loads an entry kept before labels were, and one with labels', () => {
    const fits = fitsSchema(StoredBenchSchema)
    expect(fits(before)).toBe(true)
    expect(fits({ ...before, labels: [label(6, 'datetime', 'no-match')] })).toBe(true)
  })

  it('drops an entry whose label is not one of the three verdicts, or not on a PR', () => {
    const fits = fitsSchema(StoredBenchSchema)
    expect(fits({ ...before, labels: [{ ...label(6, 'datetime', 'match'), verdict: 'maybe' }] })).toBe(false)
    expect(fits({ ...before, labels: [{ ...label(6, 'datetime', 'match'), pr: 0 }] })).toBe(false)
  })
})
