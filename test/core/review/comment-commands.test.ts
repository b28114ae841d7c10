import { describe, expect, it } from 'bun:test'
import {
  MAX_COMMANDS_PER_COMMENT,
  matchRule,
  parseCommentCommands,
  REFUSAL_REPLY_WINDOW_MS,
  reasonProblem,
  refusalReplyAllowance,
  whyNotAllowed,
} from '../../../core/review/comment-commands.ts'

const LOGIN = 'review-classifier'

describe('parseCommentCommands', () => {
  it('reads a waiver and a label, one a line, the login and the command words in any case', () => {
    const body = [
      'Thanks for the review.',
      '@Review-Classifier WAIVE datetime: the timestamps here are parsed, not made',
      '@review-classifier Label datetime No-Match',
    ].join('\r\n')
    expect(parseCommentCommands(body, LOGIN)).toEqual({
      commands: [
        { kind: 'waive', line: 2, rule: 'datetime', reason: 'the timestamps here are parsed, not made' },
        { kind: 'label', line: 3, rule: 'datetime', label: 'no-match' },
      ],
      beyond: 0,
    })
  })

  it('keeps a rule name with spaces, and the reason after the first colon whole', () => {
    const parsed = parseCommentCommands('@review-classifier waive no secrets in logs: see: the docs, p. 3', LOGIN)
    expect(parsed.commands).toEqual([
      { kind: 'waive', line: 1, rule: 'no secrets in logs', reason: 'see: the docs, p. 3' },
    ])
    const label = parseCommentCommands('@review-classifier label no secrets in logs not-applicable', LOGIN)
    expect(label.commands).toEqual([{ kind: 'label', line: 1, rule: 'no secrets in logs', label: 'not-applicable' }])
  })

  it('reads no mention mid-line, in a quote, in a fenced code block, or of a longer login', () => {
    const body = [
      'as @review-classifier waive datetime: said before, not a command',
      '> @review-classifier waive datetime: quoted back from someone',
      '```',
      '@review-classifier waive datetime: only an example in a block',
      '```',
      '~~~~',
      '@review-classifier label datetime match',
      '~~~~',
      '@review-classifier-2 waive datetime: another account entirely',
      '@review-classifier.bot label datetime match',
    ].join('\n')
    expect(parseCommentCommands(body, LOGIN)).toEqual({ commands: [], beyond: 0 })
  })

  it('says what is wrong with a line addressed to the account that is no command it knows', () => {
    const body = [
      '@review-classifier approve please',
      '@review-classifier waive datetime because I say so',
      '@review-classifier label datetime maybe',
      '@review-classifier',
    ].join('\n')
    expect(parseCommentCommands(body, LOGIN).commands).toEqual([
      { kind: 'unreadable', line: 1, problem: '"approve" is no command: the commands are waive and label' },
      { kind: 'unreadable', line: 2, problem: 'a waiver is `waive <rule>: <reason>`' },
      { kind: 'unreadable', line: 3, problem: 'a label is `label <rule> match|no-match|not-applicable`' },
      { kind: 'unreadable', line: 4, problem: 'no command: the commands are waive and label' },
    ])
  })

  it(`reads at most ${MAX_COMMANDS_PER_COMMENT} commands of a comment and counts the rest`, () => {
    const body = Array.from({ length: 500 }, (_, i) => `@review-classifier label rule-${i} match`).join('\n')
    const parsed = parseCommentCommands(body, LOGIN)
    expect(parsed.commands).toHaveLength(MAX_COMMANDS_PER_COMMENT)
    expect(parsed.beyond).toBe(500 - MAX_COMMANDS_PER_COMMENT)
  })
})

describe('matchRule', () => {
  it('matches a rule by name ignoring case and surrounding spaces, and nothing else', () => {
    const names = ['datetime', 'No Secrets']
    expect(matchRule(' DateTime ', names)).toBe('datetime')
    expect(matchRule('no secrets', names)).toBe('No Secrets')
    expect(matchRule('date', names)).toBeNull()
    expect(matchRule('', names)).toBeNull()
  })
})

describe('reasonProblem', () => {
  it('takes 10 to 500 characters, counted as a person counts them', () => {
    expect(reasonProblem('x'.repeat(9))).toBe("a waiver's reason is 10 to 500 characters, and this one has 9")
    expect(reasonProblem('x'.repeat(10))).toBeNull()
    expect(reasonProblem('x'.repeat(500))).toBeNull()
    expect(reasonProblem('x'.repeat(501))).toBe("a waiver's reason is 10 to 500 characters, and this one has 501")
    // Ten emoji are ten characters, not twenty UTF-16 units.
    expect(reasonProblem('😀'.repeat(10))).toBeNull()
    expect(reasonProblem('😀'.repeat(9))).not.toBeNull()
  })
})

describe('whyNotAllowed', () => {
  const author = { permission: 'read', isAuthor: true } as const
  const reader = { permission: 'read', isAuthor: false } as const
  it('lets write, admin and owner waive and label', () => {
    for (const permission of ['write', 'admin', 'owner'] as const) {
      expect(whyNotAllowed('waive', { permission, isAuthor: false }, false)).toBeNull()
      expect(whyNotAllowed('label', { permission, isAuthor: false }, false)).toBeNull()
    }
  })
  it("lets the PR's author label, and waive only when waivers_by_author says so", () => {
    expect(whyNotAllowed('label', author, false)).toBeNull()
    expect(whyNotAllowed('waive', author, false)).toContain('only people with write access')
    expect(whyNotAllowed('waive', author, true)).toBeNull()
  })
  it('lets someone with read access or none do nothing', () => {
    for (const who of [reader, { permission: 'none', isAuthor: false } as const]) {
      expect(whyNotAllowed('waive', who, true)).toBe('only people with write access to the repo may waive')
      expect(whyNotAllowed('label', who, true)).toBe(
        "only the PR's author and people with write access to the repo may label",
      )
    }
  })
})

describe('refusalReplyAllowance', () => {
  const HOUR = REFUSAL_REPLY_WINDOW_MS
  it('replies twice, then a last time that says so, then not until the hour since the first is over', () => {
    expect(refusalReplyAllowance([], 0)).toBe('reply')
    expect(refusalReplyAllowance([0], 10)).toBe('reply')
    expect(refusalReplyAllowance([0, 10], 20)).toBe('last')
    expect(refusalReplyAllowance([0, 10, 20], 30)).toBe('silent')
    expect(refusalReplyAllowance([0, 10, 20], HOUR - 1)).toBe('silent')
    // The first has left the window: two recent ones, so this is the last again.
    expect(refusalReplyAllowance([0, 10, 20], HOUR)).toBe('last')
    expect(refusalReplyAllowance([0, 10, 20], HOUR + 20)).toBe('reply')
  })
})
