import { describe, expect, it } from 'bun:test'
import { noRuntimeReason, REPO_RUNTIMES_MAX, resolveRepoRuntime } from '../../../core/settings/repo-runtimes.ts'
import { applySettingsUpdate, DEFAULT_SETTINGS, decodeStoredSettings } from '../../../core/settings/settings.ts'
import type { RepoRuntime, Settings } from '../../../core/wire/types.ts'
import { aSettings } from '../../support/builders.ts'

const ACP = { base_url: 'https://llm.example/v1', model: 'qwen3', prices: { input: 0, output: 0 } }

function refusal(body: unknown, current: Settings = aSettings({ acp: ACP })): string {
  const result = applySettingsUpdate(current, body)
  if (result.ok) throw new Error(`expected a 400, but stored ${JSON.stringify(result.value)}`)
  return result.error
}

describe('resolveRepoRuntime', () => {
  const policy: Record<string, RepoRuntime> = {
    'acme/secret': 'none',
    'acme/*': 'acp',
    'Globex/Web': 'subscription',
    'globex/*': 'none',
    '*/*': 'api-key',
  }
  const settings = { runtime: 'subscription', repo_runtimes: policy } as const

  it.each([
    ['acme/secret', 'none', 'acme/secret'],
    ['acme/widgets', 'acp', 'acme/*'],
    ['ACME/Widgets', 'acp', 'acme/*'],
    ['globex/web', 'subscription', 'Globex/Web'],
    ['globex/api', 'none', 'globex/*'],
    ['initech/tps', 'api-key', '*/*'],
  ] as const)('sends %s to %s (pattern %s): exact, then owner, then */*', (repo, runtime, pattern) => {
    expect(resolveRepoRuntime(settings, repo)).toEqual({ runtime, pattern })
  })

  it("uses the settings' runtime for a repo no pattern matches", () => {
    const narrow = { runtime: 'acp', repo_runtimes: { 'acme/*': 'none' } } as const
    expect(resolveRepoRuntime(narrow, 'initech/tps')).toEqual({ runtime: 'acp', pattern: null })
    expect(resolveRepoRuntime(DEFAULT_SETTINGS, 'acme/widgets')).toEqual({ runtime: 'api-key', pattern: null })
  })

  it("doesn't let an owner pattern match another owner whose name starts the same", () => {
    const narrow = { runtime: 'api-key', repo_runtimes: { 'acme/*': 'none' } } as const
    expect(resolveRepoRuntime(narrow, 'acme-labs/widgets').runtime).toBe('api-key')
  })

  it('says why no model was asked and how an admin changes it', () => {
    const reason = noRuntimeReason('acme/secret', 'acme/*')
    expect(reason).toContain("sends acme/secret's diffs to no runtime")
    expect(reason).toContain('"acme/*"')
    expect(reason).toContain('repo_runtimes')
    expect(reason).toContain('/api/review-classifier/settings')
  })
})

describe('repo_runtimes in a settings PUT', () => {
  it('stores the policy whole, replacing the one before', () => {
    const current = aSettings({ acp: ACP, repo_runtimes: { 'acme/*': 'none' } })
    const stored = applySettingsUpdate(current, { repo_runtimes: { 'globex/*': 'acp', '*/*': 'subscription' } })
    expect(stored).toEqual({
      ok: true,
      value: { ...current, repo_runtimes: { 'globex/*': 'acp', '*/*': 'subscription' } },
    })
    expect(applySettingsUpdate(current, { repo_runtimes: {} })).toEqual({ ok: true, value: aSettings({ acp: ACP }) })
  })

  it('keeps the policy when a PUT leaves it out', () => {
    const current = aSettings({ repo_runtimes: { 'acme/*': 'none' } })
    const stored = applySettingsUpdate(current, { runtime: 'subscription' })
    expect(stored.ok && stored.value.repo_runtimes).toEqual({ 'acme/*': 'none' })
  })

  it.each([
    ['null', null, ['repo_runtimes must be an object']],
    ['a list', ['acme/*'], ['repo_runtimes must be an object', 'a list']],
    ['a runtime it does not know', { 'acme/*': 'local' }, ['repo_runtimes["acme/*"]', '"none"', '"local"']],
    ['a runtime that is not a string', { 'acme/*': 1 }, ['repo_runtimes["acme/*"]']],
    ['a bare owner', { acme: 'none' }, ['repo_runtimes key "acme"', 'owner/name, owner/* or */*']],
    ['*/name', { '*/widgets': 'none' }, ['"*/widgets"', '*/name is not a pattern']],
    ['a partial wildcard', { 'acme/web-*': 'none' }, ['"acme/web-*"', 'in the name']],
    ['an owner wildcard prefix', { 'ac*/x': 'none' }, ['"ac*/x"', 'in the owner']],
    ['three parts', { 'a/b/c': 'none' }, ['"a/b/c"']],
    ['whitespace', { 'acme/ widgets': 'none' }, ['"acme/ widgets"']],
    ['two keys differing only in case', { 'acme/*': 'none', 'ACME/*': 'acp' }, ['"acme/*"', '"ACME/*"', 'same repos']],
  ])('refuses %s, naming the field', (_name, value, mentions) => {
    const detail = refusal({ repo_runtimes: value })
    for (const mention of mentions) expect(detail).toContain(mention)
  })

  it('refuses more patterns than the bound', () => {
    const many = Object.fromEntries(Array.from({ length: REPO_RUNTIMES_MAX + 1 }, (_, i) => [`o${i}/*`, 'none']))
    expect(refusal({ repo_runtimes: many })).toContain(`at most ${REPO_RUNTIMES_MAX}`)
  })

  it('refuses a pattern sent to acp while no provider is set, and clearing the provider a pattern needs', () => {
    expect(refusal({ repo_runtimes: { 'acme/*': 'acp' } }, DEFAULT_SETTINGS)).toContain(
      'repo_runtimes sends "acme/*" to "acp", which needs a provider',
    )
    const current = aSettings({ acp: ACP, repo_runtimes: { 'acme/*': 'acp' } })
    expect(refusal({ acp: null }, current)).toContain('which needs a provider')
  })
})

describe('repo_runtimes in a stored document', () => {
  it('reads as {} when absent (a document an older build wrote)', () => {
    expect(decodeStoredSettings({ model: 'sonnet' }).settings?.repo_runtimes).toEqual({})
  })

  it("reads a runtime this build doesn't know as none: such a repo goes to no model, never the default", () => {
    const decoded = decodeStoredSettings({ repo_runtimes: { 'acme/*': 'local', 'globex/*': 'api-key' } })
    expect(decoded).toEqual({
      settings: aSettings({ repo_runtimes: { 'acme/*': 'none', 'globex/*': 'api-key' } }),
      warning: null,
    })
  })
})

describe('the subscription runtime in a settings PUT', () => {
  it("runs on the API key runtime's model and effort, and switching keeps the other runtimes' fields", () => {
    const current = aSettings({ model: 'sonnet', effort: 'low', acp: ACP })
    const onSubscription = applySettingsUpdate(current, { runtime: 'subscription' })
    expect(onSubscription).toEqual({ ok: true, value: { ...current, runtime: 'subscription' } })
    if (!onSubscription.ok) return
    const onAcp = applySettingsUpdate(onSubscription.value, { runtime: 'acp' })
    expect(onAcp).toEqual({ ok: true, value: { ...current, runtime: 'acp' } })
    if (!onAcp.ok) return
    expect(applySettingsUpdate(onAcp.value, { runtime: 'api-key' })).toEqual({ ok: true, value: current })
  })

  it('reads a stored subscription runtime back', () => {
    expect(decodeStoredSettings({ runtime: 'subscription' })).toEqual({
      settings: aSettings({ runtime: 'subscription' }),
      warning: null,
    })
  })
})
