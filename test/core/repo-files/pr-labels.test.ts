import { describe, expect, it } from 'bun:test'
import {
  addPrLabel,
  labelsKey,
  PR_LABELS_KEPT,
  type PrLabel,
  readPrLabels,
} from '../../../core/repo-files/pr-labels.ts'

function aLabel(overrides: Partial<PrLabel> = {}): PrLabel {
  return { pr: 4, rule: 'datetime', label: 'match', by: 'maria', at_unix: 1_767_225_600, ...overrides }
}

describe('the labels from PR comments', () => {
  it('keeps the newest per PR and rule, newest first', () => {
    let stored = addPrLabel(null, aLabel())
    stored = addPrLabel(stored, aLabel({ pr: 5 }))
    stored = addPrLabel(stored, aLabel({ label: 'no-match', by: 'li', at_unix: 1_767_225_700 }))
    expect(readPrLabels(stored)).toEqual([
      aLabel({ label: 'no-match', by: 'li', at_unix: 1_767_225_700 }),
      aLabel({ pr: 5 }),
    ])
  })

  it(`keeps at most ${PR_LABELS_KEPT}, dropping the oldest`, () => {
    let stored: string | null = null
    for (let pr = 1; pr <= PR_LABELS_KEPT + 5; pr += 1) stored = addPrLabel(stored, aLabel({ pr }))
    const kept = readPrLabels(stored)
    expect(kept).toHaveLength(PR_LABELS_KEPT)
    expect(kept[0]?.pr).toBe(PR_LABELS_KEPT + 5)
    expect(kept.at(-1)?.pr).toBe(6)
  })

  it('reads a stored value that is not JSON, not a list, or holds entries of another shape as what it can', () => {
    expect(readPrLabels('nope')).toEqual([])
    expect(readPrLabels('{}')).toEqual([])
    expect(readPrLabels(JSON.stringify([aLabel(), { pr: 'x' }, aLabel({ label: 'maybe' as 'match' })]))).toEqual([
      aLabel(),
    ])
  })

  it('keys a repo by its lowercased name, in characters a KV key may hold', () => {
    expect(labelsKey('Acme/Widgets')).toBe(labelsKey('acme/widgets'))
    expect(labelsKey('acme/wid.gets_-x')).toMatch(/^[A-Za-z0-9_]+$/)
    expect(labelsKey('acme/a')).not.toBe(labelsKey('acme/b'))
  })
})
