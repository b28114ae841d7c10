/**
 * Every attempt side by side: one column per attempt, oldest left, one row
 * per rule (aligned by name across attempts), each cell the rule's answer
 * in that attempt in words (verdict, certainty, what it does to the
 * review; a repeat's or replay's tally), its description's change since
 * the column before as a word diff, and a button that puts an attempt's
 * rules back in the editor.
 */
import type { Classification } from '../core/wire/types.ts'
import { type Attempt, outcomeWords } from './attempt.ts'
import type { DraftEntry } from './bench-store.ts'
import { type Child, h } from './dom.ts'
import { verdictLabel } from './format.ts'
import { wordDiffElement } from './word-diff.ts'

function answerWords(attempt: Attempt, name: string): string {
  const view = attempt.view
  if (attempt.lost !== null) return 'gone'
  const running = view === null || view.status === 'running'
  if (attempt.mode === 'examples') {
    const scored = view?.score?.classifications.find((entry) => entry.name === name)
    if (scored === undefined) return running ? 'running…' : 'no score'
    return `${scored.agree} agree, ${scored.disagree} disagree, ${scored.false_pass} false pass${scored.false_pass === 1 ? '' : 'es'}`
  }
  const rows =
    attempt.mode === 'replay'
      ? (view?.replay?.pulls ?? []).flatMap((line) => line.rows?.filter((row) => row.name === name) ?? [])
      : attempt.mode === 'repeat'
        ? (view?.repeat?.classifications.find((entry) => entry.name === name)?.answers ?? [])
        : (view?.rows ?? []).filter((row) => row.name === name)
  if (rows.length === 0) return running ? 'running…' : 'no answer'
  if (attempt.mode === 'pull' && rows[0] !== undefined) {
    const row = rows[0]
    return `${verdictLabel(row.verdict)}${row.certainty === null ? '' : ` ${row.certainty}`}, ${outcomeWords(row)}`
  }
  const fail = rows.filter((row) => row.counted && row.fails).length
  const uncounted = rows.filter((row) => !row.counted).length
  return `${fail} of ${rows.length} fail${uncounted > 0 ? `, ${uncounted} uncounted` : ''}`
}

function ruleCell(attempt: Attempt, before: Attempt | undefined, name: string): HTMLElement {
  const sent = attempt.sent.find((entry) => entry.name === name)
  if (sent === undefined) return h('td', { class: 'cell--absent' }, 'not in this attempt')
  const old = before?.sent.find((entry) => entry.name === name)
  const terms = `${sent.polarity}, threshold ${sent.threshold}`
  const termsChanged = old !== undefined && (old.polarity !== sent.polarity || old.threshold !== sent.threshold)
  return h(
    'td',
    {},
    h('span', { class: 'matrix-answer' }, answerWords(attempt, name)),
    h('span', { class: 'rule-terms' }, termsChanged ? `${terms} (was ${old.polarity}, ${old.threshold})` : terms),
    old === undefined || old.description === sent.description
      ? null
      : h('span', { class: 'matrix-diff' }, 'Description: ', wordDiffElement(old.description, sent.description)),
  )
}

function target(attempt: Attempt): string {
  if (attempt.mode === 'replay') return `last ${attempt.count} PRs`
  if (attempt.mode === 'examples') return `labelled PRs${attempt.count > 1 ? ` × ${attempt.count}` : ''}`
  return `#${attempt.pr ?? ''}${attempt.mode === 'repeat' ? ` × ${attempt.count}` : ''}`
}

/** The matrix, or nothing before a second attempt. */
export function attemptsMatrix(attempts: readonly Attempt[], restore: (attempt: Attempt) => void): Child {
  if (attempts.length < 2) return null
  const names: string[] = []
  for (const attempt of attempts) {
    for (const entry of attempt.sent) if (!names.includes(entry.name)) names.push(entry.name)
  }
  const restoreButton = (attempt: Attempt) =>
    h(
      'button',
      {
        type: 'button',
        class: 'link-button restore',
        'data-restore': String(attempt.number),
        on: { click: () => restore(attempt) },
      },
      'Restore this attempt',
      h('span', { class: 'visually-hidden' }, ` (${attempt.number})`),
    )
  return h(
    'section',
    { class: 'matrix', 'aria-labelledby': 'matrix-title', 'data-key': 'matrix' },
    h('h3', { id: 'matrix-title' }, 'Every attempt'),
    h(
      'div',
      { class: 'table-wrap', role: 'region', tabindex: '0', 'aria-label': 'Every attempt, oldest first' },
      h(
        'table',
        { class: 'attempts-matrix' },
        h('caption', { class: 'visually-hidden' }, 'One column per attempt, oldest first; one row per rule'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Rule'),
            ...attempts.map((attempt) =>
              h(
                'th',
                { scope: 'col', 'data-attempt': String(attempt.number) },
                `Attempt ${attempt.number}`,
                h('span', { class: 'rule-terms' }, target(attempt)),
                restoreButton(attempt),
              ),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          ...names.map((name) =>
            h(
              'tr',
              { 'data-rule': name },
              h('th', { scope: 'row', class: 'matrix-rule' }, name),
              ...attempts.map((attempt, index) => ruleCell(attempt, attempts[index - 1], name)),
            ),
          ),
        ),
      ),
    ),
  )
}

/** An attempt's rules as the editor takes them back. */
export function draftOf(sent: readonly Classification[]): DraftEntry[] {
  return sent.map(({ paths, mode, ...entry }) => ({
    ...entry,
    threshold: String(entry.threshold),
    ...(paths === undefined ? {} : { paths: paths.join('\n') }),
    ...(mode === undefined ? {} : { mode }),
  }))
}
