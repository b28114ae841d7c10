import { describe, expect, it } from 'bun:test'
import { requestTargetProblem } from '../../../core/wire/request-target.ts'

describe('requestTargetProblem', () => {
  it('takes a plain path, with or without a query, and a query that holds anything', () => {
    for (const target of [
      '/',
      '/api/review-classifier/runs',
      '/ui/app.js?v=1',
      '/a//b',
      '/a/b..c/.hidden/...',
      '/a%20b',
      '/a?x=/../&y=%2F',
    ]) {
      expect(requestTargetProblem(target)).toBeNull()
    }
  })

  it('refuses dot segments in every spelling, encoded slashes and backslashes, and targets that are no path', () => {
    for (const target of [
      '/webhook/forge/review-request/../../../api/review-classifier/settings',
      '/webhook/forge/review-request/%2e%2e/%2E%2E/%2e./api/review-classifier/settings',
      '/ui/./app.js',
      '/ui/%2e/app.js',
      '/ui/..',
      '/webhook/forge/review-request/..%2f..%2fapi',
      '/a%5cb',
      '/a\\..\\b',
      '/a#b',
      'http://127.0.0.1/api/review-classifier/settings',
      '*',
      '',
    ]) {
      expect(requestTargetProblem(target)).not.toBeNull()
    }
  })
})
