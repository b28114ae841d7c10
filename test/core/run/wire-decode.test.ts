import { describe, expect, it } from 'bun:test'
import { decodeRunReply, decodeRunRequest } from '../../../core/run/wire-decode.ts'
import { aClassification, aRow, aRunReply, aRunRequest } from '../../support/builders.ts'

function requestWith(overrides: Record<string, unknown>): string {
  return JSON.stringify({ ...aRunRequest(), ...overrides })
}

describe('decodeRunRequest', () => {
  it('decodes a full request as sent', () => {
    const request = aRunRequest({
      effort: 'low',
      classifications: [aClassification(), aClassification({ name: 'b', polarity: 'negative' })],
    })
    expect(decodeRunRequest(JSON.stringify(request))).toEqual({ ok: true, value: request })
  })

  it('ignores unknown fields and applies the split-deploy defaults', () => {
    const { runtime: _r, model: _m, effort: _e, acp: _a, max_output_tokens: _t, ...old } = aRunRequest()
    const decoded = decodeRunRequest(JSON.stringify({ ...old, from_the_future: { x: 1 } }))
    expect(decoded.ok && decoded.value).toMatchObject({
      runtime: 'api-key',
      model: 'haiku',
      effort: null,
      acp: null,
      max_output_tokens: 1024,
    })
    expect(decoded.ok && 'from_the_future' in decoded.value).toBe(false)
  })

  it.each([
    ['not JSON', 'nope', 'not valid JSON'],
    ['a scalar', '42', 'run request'],
    ['no id', requestWith({ id: undefined }), 'id'],
    ['an empty id', requestWith({ id: '' }), 'id'],
    ['an unknown trigger', requestWith({ trigger: 'cron' }), 'trigger'],
    ['a repo that is not owner/name', requestWith({ repo: 'widgets' }), 'repo'],
    ['a PR number that is not whole', requestWith({ pr: 4.5 }), 'pr'],
    ['a PR number as a string', requestWith({ pr: '42' }), 'pr'],
    ['a commit without message', requestWith({ commits: [{ sha: 'abc' }] }), 'commits'],
    ['no diff', requestWith({ diff: undefined }), 'diff'],
    ['no classifications', requestWith({ classifications: [] }), 'classifications'],
    [
      'a classification with an extra key',
      requestWith({ classifications: [{ ...aClassification(), weight: 2 }] }),
      'weight',
    ],
    [
      'duplicate classification names',
      requestWith({ classifications: [aClassification(), aClassification()] }),
      'unique',
    ],
    ['an unknown runtime', requestWith({ runtime: 'gpu' }), 'runtime'],
    ['a model with whitespace', requestWith({ model: 'haiku 4' }), 'model'],
    ['a model that reads as an option', requestWith({ model: '-p' }), 'model'],
    ['an unknown effort', requestWith({ effort: 'extreme' }), 'effort'],
    ['an output cap over 8192', requestWith({ max_output_tokens: 32000 }), 'max_output_tokens must be 256 to 8192'],
    ['an output cap as a string', requestWith({ max_output_tokens: '1024' }), 'max_output_tokens'],
    [
      'acp over plain http',
      requestWith({ runtime: 'acp', acp: { base_url: 'http://x', model: 'm', prices: { input: 1, output: 1 } } }),
      'https',
    ],
  ])('refuses %s, naming the problem', (_label, text, expected) => {
    const decoded = decodeRunRequest(text)
    expect(decoded.ok).toBe(false)
    if (!decoded.ok) expect(decoded.error).toContain(expected)
  })

  it('refuses a plain http ACP provider in the words of a refused run, not of a stored document', () => {
    const decoded = decodeRunRequest(
      requestWith({
        runtime: 'acp',
        acp: { base_url: 'http://llm.example/v1', model: 'm', prices: { input: 1, output: 1 } },
      }),
    )
    expect(decoded).toEqual({ ok: false, error: 'run request: acp.base_url must be an https:// URL, not http://' })
  })
})

describe('decodeRunReply', () => {
  it('decodes a reply with rows and usage', () => {
    const reply = aRunReply({
      rows: [
        aRow({ usage: { input: 1, output: 2, cache_read: 3, cache_write: 4 } }),
        aRow({
          name: 'b',
          verdict: null,
          certainty: null,
          reason: null,
          counted: false,
          error: { kind: 'timeout', detail: 'x' },
        }),
      ],
    })
    expect(decodeRunReply(JSON.stringify(reply))).toEqual({ ok: true, value: reply })
  })

  it('keeps a failed reply with its error', () => {
    const decoded = decodeRunReply(
      JSON.stringify({ id: 'a', ok: false, error: 'no key', rows: [], overall: 'no-verdict', extra: true }),
    )
    expect(decoded).toEqual({
      ok: true,
      value: { id: 'a', ok: false, error: 'no key', rows: [], overall: 'no-verdict' },
    })
  })

  it.each([
    ['not JSON', '{'],
    ['an unknown overall', JSON.stringify({ ...aRunReply(), overall: 'maybe' })],
    ['a row with a certainty over 100', JSON.stringify(aRunReply({ rows: [aRow({ certainty: 101 })] }))],
    ['a row with an unknown verdict', JSON.stringify({ ...aRunReply(), rows: [{ ...aRow(), verdict: 'yes' }] })],
    [
      'a row with an unknown error kind',
      JSON.stringify({ ...aRunReply(), rows: [{ ...aRow(), error: { kind: 'oops', detail: '' } }] }),
    ],
    ['no rows', JSON.stringify({ id: 'a', ok: true, overall: 'approve' })],
  ])('refuses %s', (_label, text) => {
    expect(decodeRunReply(text).ok).toBe(false)
  })
})
