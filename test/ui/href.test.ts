/** Which link targets the pages accept (ui/href.ts): the same WHATWG URL parsing a browser applies. */
import { describe, expect, it } from 'bun:test'
import { isSafeHref } from '../../ui/href.ts'

describe('isSafeHref', () => {
  it.each([
    '#runs',
    './runs',
    '../api/review-classifier/runs',
    '/ui/',
    '/api/review-classifier/runs?repo=acme/widgets',
    'https://forge.example/acme/widgets/pulls/7#issuecomment-1',
    'http://127.0.0.1:8081/',
  ])('takes %s', (url) => {
    expect(isSafeHref(url)).toBe(true)
  })

  it.each([
    ['a path a browser reads as another host', '/\\evil'],
    ['two backslashes', '\\\\evil'],
    ['a slash and a backslash', '/\\/evil'],
    ['a protocol-relative URL', '//evil'],
    ['a tab between the slashes', '/\t/evil'],
    ['a newline between the slashes', '/\n/evil'],
    ['a carriage return between the slashes', '/\r/evil'],
    ['a leading space', ' //evil'],
    ['a dot segment with a backslash', '.\\\\evil'],
    ['javascript', 'javascript:alert(1)'],
    ['javascript with a tab inside the scheme', 'java\tscript:alert(1)'],
    ['javascript in upper case', 'JAVASCRIPT:alert(1)'],
    ['data', 'data:text/html,<script>alert(1)</script>'],
    ['a bare word', 'runs'],
    ['an empty string', ''],
  ])('refuses %s', (_label, url) => {
    expect(isSafeHref(url)).toBe(false)
  })
})
