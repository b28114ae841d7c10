import { describe, expect, it } from 'bun:test'
import {
  isAllowedHost,
  isCrossSite,
  isJsonContentType,
  isLoopbackAddress,
  normalizeHostname,
  parseAuthority,
} from '../../../core/wire/request-origin.ts'

describe('parseAuthority', () => {
  it('reads a host name (lowercased, IPv6 in brackets) and a port, 80 when left out', () => {
    expect(parseAuthority('127.0.0.1:8081')).toEqual({ hostname: '127.0.0.1', port: 8081 })
    expect(parseAuthority('LocalHost:8081')).toEqual({ hostname: 'localhost', port: 8081 })
    expect(parseAuthority('[::1]:8081')).toEqual({ hostname: '[::1]', port: 8081 })
    expect(parseAuthority('admin.example')).toEqual({ hostname: 'admin.example', port: 80 })
  })

  it('takes nothing but a host and a port', () => {
    for (const bad of [
      '',
      'evil.example@127.0.0.1:8081',
      '127.0.0.1:8081/x',
      '127.0.0.1 :8081',
      'a\\b',
      '[::1',
      'x:y',
    ]) {
      expect(parseAuthority(bad)).toBeNull()
    }
  })
})

describe('isLoopbackAddress', () => {
  it('knows 127.0.0.0/8, ::1 and localhost, and nothing else', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST']) {
      expect(isLoopbackAddress(host)).toBe(true)
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.0.2.2', 'forge.example', '127.evil.example']) {
      expect(isLoopbackAddress(host)).toBe(false)
    }
  })
})

describe('normalizeHostname and isAllowedHost', () => {
  it('spells host names as a Host header does, and refuses one with a port or a path', () => {
    expect(normalizeHostname(' Admin.Example ')).toBe('admin.example')
    expect(normalizeHostname('::1')).toBe('[::1]')
    expect(normalizeHostname('[::1]')).toBe('[::1]')
    for (const bad of ['localhost:8080', 'a/b', 'x@y', '']) expect(normalizeHostname(bad)).toBeNull()
  })

  it('matches the Host by its name, whatever the port', () => {
    const allowed = ['127.0.0.1', 'localhost', '[::1]']
    expect(isAllowedHost('127.0.0.1:8080', allowed)).toBe(true)
    expect(isAllowedHost('LOCALHOST:9', allowed)).toBe(true)
    expect(isAllowedHost('[::1]:8080', allowed)).toBe(true)
    expect(isAllowedHost('evil.example:8080', allowed)).toBe(false)
    expect(isAllowedHost('127.0.0.1.evil.example:8080', allowed)).toBe(false)
    expect(isAllowedHost('', allowed)).toBe(false)
  })
})

describe('isCrossSite', () => {
  it('is not for a request from no page (no Origin, no Sec-Fetch-Site), or from this site', () => {
    expect(isCrossSite(null, null, '127.0.0.1:8081')).toBe(false)
    expect(isCrossSite('http://127.0.0.1:8081', 'same-origin', '127.0.0.1:8081')).toBe(false)
    expect(isCrossSite('https://admin.example', null, 'Admin.Example')).toBe(false)
    // A default port written on one side only, and a gateway that ends TLS in front of plain http.
    expect(isCrossSite('https://admin.example', null, 'admin.example:443')).toBe(false)
    expect(isCrossSite('http://127.0.0.1:8081', 'none', '127.0.0.1:8081')).toBe(false)
  })

  it("is for another site's Origin, another port of this one, an opaque Origin, or Sec-Fetch-Site cross-site", () => {
    expect(isCrossSite('http://evil.example', null, '127.0.0.1:8081')).toBe(true)
    expect(isCrossSite('http://127.0.0.1:9999', null, '127.0.0.1:8081')).toBe(true)
    expect(isCrossSite('http://localhost:8081', null, '127.0.0.1:8081')).toBe(true)
    expect(isCrossSite('null', null, '127.0.0.1:8081')).toBe(true)
    expect(isCrossSite('file://', null, '127.0.0.1:8081')).toBe(true)
    expect(isCrossSite(null, 'cross-site', '127.0.0.1:8081')).toBe(true)
    expect(isCrossSite('http://127.0.0.1:8081', 'cross-site', '127.0.0.1:8081')).toBe(true)
    expect(isCrossSite('http://127.0.0.1:8081', null, '')).toBe(true)
  })
})

describe('isJsonContentType', () => {
  it("is JSON's media type, with or without parameters, in any case", () => {
    expect(isJsonContentType('application/json')).toBe(true)
    expect(isJsonContentType('Application/JSON; charset=utf-8')).toBe(true)
    for (const other of [
      null,
      '',
      'text/plain',
      'text/plain; charset=application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      'application/problem+json',
    ]) {
      expect(isJsonContentType(other)).toBe(false)
    }
  })
})
