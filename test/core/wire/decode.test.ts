import { describe, expect, it } from 'bun:test'
import { fitsSchema } from '../../../core/wire/decode.ts'
import { PullListSchema, RepoRulesSchema } from '../../../core/wire/schemas.ts'

describe('fitsSchema', () => {
  const fitsPulls = fitsSchema(PullListSchema)
  const fitsRules = fitsSchema(RepoRulesSchema)

  it('takes an answer in its schema, fields a newer build added included', () => {
    expect(fitsPulls([{ number: 4, title: 'Zones', head_sha: 'c0ffee', draft: false }])).toBe(true)
    expect(fitsPulls([])).toBe(true)
  })

  it('refuses one out of it: a missing field, a number as a string, a list that is not one', () => {
    expect(fitsPulls([{ number: 4, title: 'Zones' }])).toBe(false)
    expect(fitsPulls([{ number: '4', title: 'Zones', head_sha: '' }])).toBe(false)
    expect(fitsRules({ path: 'x', branch: 'main', commit: 'c0ffee', classifications: 'all' })).toBe(false)
    expect(fitsRules(null)).toBe(false)
  })
})
