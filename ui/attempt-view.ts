/**
 * One attempt as the results show it: its heading (the PR or PRs, the head
 * read), a status line while it runs and once it has ended, what was edited
 * since the attempt before, and the body its mode calls for: the rows of
 * one PR, a repeat's table or a replay's grid.
 */
import type { TryOutView, UiConfig } from '../core/wire/types.ts'
import { type Attempt, edits, notesFor } from './attempt.ts'
import { examplesBody } from './attempt-examples.ts'
import { repeatBody } from './attempt-repeat.ts'
import { replayBody } from './attempt-replay.ts'
import { type Child, external, h } from './dom.ts'
import { commitUrl, overallWords, plural, pullUrl, shortSha } from './format.ts'
import type { LabelBook } from './label-book.ts'
import { rowsTable } from './rows.ts'

function statusLine(attempt: Attempt, previous: Attempt | null): HTMLElement {
  const view = attempt.view
  // No live role here: the attempts announce an ending once (attempts.ts), and these lines are patched in place.
  if (attempt.lost !== null) return h('p', { class: 'attempt-status status--failed' }, attempt.lost)
  if (attempt.trouble !== null) {
    return h(
      'p',
      { class: 'attempt-status status--failed' },
      `The result can't be read right now (${attempt.trouble}); trying again.`,
    )
  }
  if (view === null) return h('p', { class: 'attempt-status' }, 'Starting…')
  if (view.status === 'running') {
    return h(
      'p',
      { class: 'attempt-status status--running' },
      h('span', { class: 'spinner', 'aria-hidden': 'true' }),
      progressText(attempt, view),
    )
  }
  if (view.status === 'failed') {
    return h(
      'p',
      { class: 'attempt-status status--failed' },
      h('strong', {}, 'Failed: '),
      view.detail ?? 'no reason given',
    )
  }
  const unstable = (view.repeat?.classifications ?? []).filter((entry) => entry.flips > 0).length
  const unsafe = (view.score?.classifications ?? []).filter((entry) => entry.false_pass > 0).length
  const overall =
    attempt.mode === 'examples'
      ? `Scored on ${plural(view.examples?.pulls.length ?? 0, 'labelled PR')}; ${unsafe === 0 ? 'no rule let a false pass through' : `${plural(unsafe, 'rule')} with a false pass`}.`
      : attempt.mode === 'replay'
        ? `${plural(view.replay?.pulls.length ?? 0, 'PR')} run.`
        : attempt.mode === 'repeat'
          ? `Each rule asked ${attempt.count} times; ${unstable === 0 ? 'no rule flipped' : `${plural(unstable, 'rule')} unstable`}.`
          : `Overall: ${overallWords(view.overall)}.`
  const was = previous?.view ?? null
  const overallChanged =
    attempt.mode === 'pull' &&
    previous?.mode === 'pull' &&
    previous.pr === attempt.pr &&
    was !== null &&
    was.status === 'done' &&
    was.overall !== view.overall
  return h(
    'p',
    { class: 'attempt-status status--done' },
    h('strong', {}, 'Done. '),
    overall,
    overallChanged
      ? h('span', { class: 'note note--outcome' }, `overall changed (was ${overallWords(was.overall)})`)
      : null,
  )
}

function progressText(attempt: Attempt, view: TryOutView): string {
  if (attempt.mode === 'examples') {
    const pulls = view.examples?.pulls ?? []
    const ended = pulls.filter((line) => line.status === 'done' || line.status === 'failed').length
    return `Running: ${ended} of ${plural(pulls.length, 'labelled PR')} finished.`
  }
  if (attempt.mode === 'replay') {
    const pulls = view.replay?.pulls ?? []
    const ended = pulls.filter((line) => line.status === 'done' || line.status === 'failed').length
    return `Running: ${ended} of ${plural(pulls.length, 'PR')} finished.`
  }
  if (attempt.mode === 'repeat') {
    const answers = (view.repeat?.classifications ?? []).reduce((sum, entry) => sum + entry.answers.length, 0)
    return `Running: ${answers} of ${attempt.count * attempt.sent.length} answers in.`
  }
  return `Running: ${view.rows?.length ?? 0} of ${plural(attempt.sent.length, 'classification')} finished.`
}

function heading(attempt: Attempt, role: 'latest' | 'previous', config: UiConfig): HTMLElement {
  const view = attempt.view
  const target =
    attempt.mode === 'examples'
      ? `the labelled PRs of ${attempt.repo}${attempt.count > 1 ? `, each rule asked ${attempt.count} times` : ''}`
      : attempt.mode === 'replay'
        ? `the last ${plural(attempt.count, 'PR')} of ${attempt.repo}`
        : `${attempt.repo} #${attempt.pr ?? ''}${attempt.mode === 'repeat' ? `, each rule asked ${attempt.count} times` : ''}`
  const head = view?.head_sha ?? null
  const headUrl = head === null ? null : commitUrl(config.forge_url, attempt.repo, head)
  const pull = attempt.pr === null ? null : pullUrl(config.forge_url, attempt.repo, attempt.pr)
  return h(
    'header',
    { class: 'attempt-head' },
    h(
      'h3',
      {},
      `Attempt ${attempt.number}`,
      h('span', { class: `badge badge--${role}` }, role === 'latest' ? 'latest' : 'previous'),
    ),
    h(
      'p',
      { class: 'attempt-target' },
      pull === null ? target : external(pull, target),
      head === null ? null : ' at ',
      head === null
        ? null
        : headUrl === null
          ? h('code', {}, shortSha(head))
          : external(headUrl, h('code', {}, shortSha(head))),
    ),
  )
}

function singleBody(attempt: Attempt, previous: Attempt | null): Child {
  const view = attempt.view
  const rows = view?.rows ?? []
  const running = view === null || view.status === 'running'
  return h(
    'div',
    { class: 'table-wrap' },
    rowsTable(rows, {
      caption: `Attempt ${attempt.number}: rows`,
      compact: true,
      ...(running ? { pending: attempt.sent } : {}),
      notes: notesFor(attempt, previous),
    }),
  )
}

/** The article of one attempt. */
export function renderAttempt(
  attempt: Attempt,
  previous: Attempt | null,
  role: 'latest' | 'previous',
  config: UiConfig,
  labels: LabelBook,
): HTMLElement {
  const edited = role === 'latest' ? edits(attempt, previous) : []
  const body =
    attempt.mode === 'examples'
      ? examplesBody(attempt)
      : attempt.mode === 'replay'
        ? replayBody(attempt, previous, labels)
        : attempt.mode === 'repeat'
          ? repeatBody(attempt)
          : singleBody(attempt, previous)
  return h(
    'article',
    {
      class: `attempt attempt--${role}`,
      'aria-label': `Attempt ${attempt.number} (${role})`,
      'data-attempt': String(attempt.number),
    },
    heading(attempt, role, config),
    statusLine(attempt, previous),
    edited.length > 0 && previous !== null
      ? h('p', { class: 'hint' }, `Edited since attempt ${previous.number}: ${edited.join(', ')}.`)
      : null,
    body,
  )
}
