import { describe, expect, it } from 'bun:test'
import { acpBaseUrlAllowed, normaliseBaseUrl, parseAcpBaseUrls } from '../../../core/settings/acp-base-urls.ts'

describe('ACP base URL allowlist', () => {
  it('normalises as the URL parser does, and drops trailing slashes from the path', () => {
    expect(normaliseBaseUrl('https://LLM.example:443/v1/')).toBe('https://llm.example/v1')
    expect(normaliseBaseUrl('https://llm.example/')).toBe('https://llm.example')
    expect(normaliseBaseUrl('https://llm.example/a/../v1//')).toBe('https://llm.example/v1')
    expect(normaliseBaseUrl('https://llm.example/v1?x=1')).toBe('https://llm.example/v1?x=1')
    expect(normaliseBaseUrl('not a url')).toBeNull()
  })

  it('reads a list separated by commas or whitespace, once each', () => {
    expect(
      parseAcpBaseUrls('ACP_BASE_URLS', ' https://a.example/v1, https://b.example:8443/api/\nhttps://a.example/v1/ '),
    ).toEqual({
      ok: true,
      value: ['https://a.example/v1', 'https://b.example:8443/api'],
    })
  })

  it.each([
    ['', 'ACP_BASE_URLS is set but lists no URL; unset it to allow any'],
    [' , ', 'ACP_BASE_URLS is set but lists no URL; unset it to allow any'],
    ['https://a.example nope', 'ACP_BASE_URLS lists "nope", which isn\'t a URL'],
    [
      'http://a.example/v1',
      'ACP_BASE_URLS lists "http://a.example/v1": acp.base_url is https:// only, so it could never match',
    ],
    [
      'https://u:p@a.example',
      "ACP_BASE_URLS lists an entry with a user or password; the provider's key belongs in the secret store",
    ],
  ])('refuses %p', (raw, problem) => {
    expect(parseAcpBaseUrls('ACP_BASE_URLS', raw)).toEqual({ ok: false, error: problem })
  })

  it('allows any without a list, and with one only what it lists', () => {
    const allowed = ['https://llm.example/v1']
    expect(acpBaseUrlAllowed(null, 'https://anywhere.example')).toBe(true)
    expect(acpBaseUrlAllowed(allowed, 'https://llm.example/v1/')).toBe(true)
    expect(acpBaseUrlAllowed(allowed, 'https://LLM.example:443/v1')).toBe(true)
    for (const other of [
      'https://llm.example/v2',
      'https://llm.example/v1/x',
      'https://llm.example:8443/v1',
      'https://llm.example.evil/v1',
      'https://llm.example/v1?x=1',
      'http://llm.example/v1',
      'garbage',
    ]) {
      expect(acpBaseUrlAllowed(allowed, other)).toBe(false)
    }
  })
})
