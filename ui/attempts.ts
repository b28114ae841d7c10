/**
 * The try-out's results: each run from the page is an attempt, read back
 * from the try-out GET until it ends, its rows shown as they finish. The
 * newest attempt is shown beside the one before it, with the verdicts that
 * changed between them marked, so an author sees what an edit did. A repeat
 * shows each rule's verdict counts, flips and certainty spread (a rule whose
 * counted outcome flips, which would flip the review, is flagged unstable; a
 * verdict that changes only below the threshold is not); a replay shows one
 * line per PR.
 */
import type {
  Classification,
  RecordedRow,
  RepeatedClassification,
  ReplayLine,
  TryOutView,
  Verdict,
} from '../core/types.ts'
import { getJson, type UiConfig } from './api.ts'
import { type Child, external, h, replace } from './dom.ts'
import { commitUrl, plural, pullUrl, rowErrorText, shortSha, verdictLabel } from './format.ts'
import { type RowNote, rowsTable, verdictBadge } from './rows.ts'

/** How often a running attempt is read again. */
export const ATTEMPT_POLL_MS = 600

export type AttemptMode = 'pull' | 'repeat' | 'replay'

export type Attempt = {
  number: number
  id: string
  mode: AttemptMode
  repo: string
  /** The PR, or null for a replay. */
  pr: number | null
  /** k for a repeat, N for a replay, 1 otherwise. */
  count: number
  sent: Classification[]
  view: TryOutView | null
  /** Why the result can't be read any more (expired, or the controller restarted). */
  lost: string | null
  /** Why the last read failed, while the page keeps trying. */
  trouble: string | null
}

type VerdictKey = string

function keyOf(pr: number, name: string): VerdictKey {
  return `${pr}\u0000${name}`
}

/** Every verdict an attempt shows, by PR and classification; a repeat's are not compared (its first answer says little). */
function verdictsOf(attempt: Attempt): Map<VerdictKey, Verdict | null> {
  const verdicts = new Map<VerdictKey, Verdict | null>()
  const view = attempt.view
  if (view === null || attempt.mode === 'repeat') return verdicts
  if (attempt.mode === 'replay') {
    for (const line of view.replay?.pulls ?? []) {
      for (const row of line.rows ?? []) verdicts.set(keyOf(line.pr, row.name), row.verdict)
    }
  } else if (view.pr !== null) {
    for (const row of view.rows ?? []) verdicts.set(keyOf(view.pr, row.name), row.verdict)
  }
  return verdicts
}

/** What changed in the classifications since the attempt before, by name. */
function edits(current: Attempt, previous: Attempt | null): string[] {
  if (previous === null) return []
  const before = new Map(previous.sent.map((classification) => [classification.name, classification]))
  return current.sent.flatMap((classification) => {
    const old = before.get(classification.name)
    if (old === undefined) return [`${classification.name} (new)`]
    const changed = (['description', 'threshold', 'polarity'] as const).filter(
      (key) => old[key] !== classification[key],
    )
    return changed.length > 0 ? [`${classification.name} (${changed.join(', ')})`] : []
  })
}

function statusLine(attempt: Attempt): HTMLElement {
  const view = attempt.view
  if (attempt.lost !== null) return h('p', { class: 'attempt-status status--failed', role: 'alert' }, attempt.lost)
  if (attempt.trouble !== null) {
    return h(
      'p',
      { class: 'attempt-status status--failed', role: 'status' },
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
      { class: 'attempt-status status--failed', role: 'alert' },
      h('strong', {}, 'Failed: '),
      view.detail ?? 'no reason given',
    )
  }
  const unstable = (view.repeat?.classifications ?? []).filter((entry) => entry.flips > 0).length
  const overall =
    attempt.mode === 'replay'
      ? `${plural(view.replay?.pulls.length ?? 0, 'PR')} run.`
      : attempt.mode === 'repeat'
        ? `Each rule asked ${attempt.count} times; ${unstable === 0 ? 'no rule flipped' : `${plural(unstable, 'rule')} unstable`}.`
        : `Overall: ${view.overall === null ? 'no verdict' : view.overall.replace('-', ' ')}.`
  return h('p', { class: 'attempt-status status--done' }, h('strong', {}, 'Done. '), overall)
}

function progressText(attempt: Attempt, view: TryOutView): string {
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
    attempt.mode === 'replay'
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

function notesFor(attempt: Attempt, previous: Attempt | null): Map<string, RowNote> {
  const notes = new Map<string, RowNote>()
  if (previous === null || attempt.view === null || attempt.mode === 'repeat' || attempt.view.pr === null) return notes
  const before = verdictsOf(previous)
  for (const row of attempt.view.rows ?? []) {
    const key = keyOf(attempt.view.pr, row.name)
    if (!before.has(key)) continue
    const was = before.get(key) ?? null
    if (was !== row.verdict) notes.set(row.name, { kind: 'changed', text: `changed (was ${verdictLabel(was)})` })
  }
  return notes
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

function verdictCounts(entry: RepeatedClassification): string {
  const parts: string[] = []
  for (const verdict of ['match', 'no-match', 'not-applicable'] as const) {
    const count = entry.verdicts[verdict]
    if (count > 0) parts.push(`${verdictLabel(verdict)} ×${count}`)
  }
  if (entry.verdicts.unanswered > 0) parts.push(`no answer ×${entry.verdicts.unanswered}`)
  return parts.length > 0 ? parts.join(', ') : '—'
}

function answerChip(row: RecordedRow, index: number): HTMLElement {
  const label = row.verdict === null ? 'no answer' : verdictLabel(row.verdict)
  return h(
    'li',
    { title: row.error === null ? (row.reason ?? '') : rowErrorText(row) },
    h('span', { class: 'visually-hidden' }, `Answer ${index + 1}: `),
    h(
      'span',
      {
        class: `verdict verdict--${row.verdict === null ? 'none' : row.counted ? (row.fails ? 'fails' : 'passes') : 'uncounted'}`,
      },
      label,
      row.certainty === null ? null : h('span', { class: 'chip-certainty' }, ` ${row.certainty}`),
    ),
  )
}

function stabilityOf(entry: RepeatedClassification | undefined, running: boolean, count: number): HTMLElement {
  const answers = entry?.answers.length ?? 0
  if (entry !== undefined && entry.flips > 0) return h('span', { class: 'badge badge--unstable' }, 'unstable')
  if (running) return h('span', { class: 'muted' }, `${answers} of ${count} in`)
  if (answers === 0) return h('span', { class: 'muted' }, 'no answer')
  return h('span', { class: 'badge badge--stable' }, 'stable')
}

function repeatBody(attempt: Attempt): Child {
  const entries = attempt.view?.repeat?.classifications ?? []
  const running = attempt.view === null || attempt.view.status === 'running'
  const byName = new Map(entries.map((entry) => [entry.name, entry]))
  const columns = ['Classification', 'Stability', 'Verdicts', 'Flips', 'Certainty']
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'rows repeat' },
      h('caption', { class: 'visually-hidden' }, `Attempt ${attempt.number}: each rule asked ${attempt.count} times`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...columns.map((column) =>
            h(
              'th',
              { scope: 'col' },
              column,
              column === 'Certainty' ? h('span', { class: 'rule-terms' }, 'min / median / max') : null,
            ),
          ),
        ),
      ),
      ...attempt.sent.map((classification) => {
        const entry = byName.get(classification.name)
        const certainty = entry?.certainty ?? null
        return h(
          'tbody',
          { 'data-rule': classification.name },
          h(
            'tr',
            { class: 'repeat-summary' },
            h('th', { scope: 'row', 'data-label': 'Classification' }, classification.name),
            h('td', { 'data-label': 'Stability' }, stabilityOf(entry, running, attempt.count)),
            h('td', { 'data-label': 'Verdicts' }, entry === undefined ? '—' : verdictCounts(entry)),
            h('td', { 'data-label': 'Flips', class: 'flips' }, entry === undefined ? '—' : String(entry.flips)),
            h(
              'td',
              { 'data-label': 'Certainty' },
              certainty === null ? '—' : `${certainty.min} / ${certainty.median} / ${certainty.max}`,
            ),
          ),
          h(
            'tr',
            { class: 'repeat-answers' },
            h(
              'td',
              { colspan: String(columns.length), 'data-label': 'Answers in the order asked' },
              h(
                'ol',
                { class: 'chips', 'aria-label': `${classification.name}: answers in the order asked` },
                ...(entry?.answers ?? []).map(answerChip),
              ),
            ),
          ),
        )
      }),
    ),
  )
}

function gridCell(
  line: ReplayLine,
  classification: Classification,
  before: Map<VerdictKey, Verdict | null>,
): HTMLElement {
  const row = line.rows?.find((candidate) => candidate.name === classification.name)
  if (row === undefined) {
    const text = line.status === 'waiting' ? 'waiting' : 'running…'
    return h('td', { 'data-label': classification.name, class: 'cell--pending' }, text)
  }
  const key = keyOf(line.pr, row.name)
  const was = before.get(key)
  const changed = before.has(key) && (was ?? null) !== row.verdict
  return h(
    'td',
    { 'data-label': classification.name, title: row.error === null ? (row.reason ?? '') : rowErrorText(row) },
    verdictBadge(row),
    row.certainty === null ? null : h('span', { class: 'cell-certainty' }, ` ${row.certainty}`),
    row.counted && row.fails ? h('span', { class: 'badge badge--fails' }, 'fails') : null,
    row.error === null ? null : h('span', { class: 'cell-error' }, ` ${row.error.kind}`),
    changed ? h('span', { class: 'note note--changed' }, `changed (was ${verdictLabel(was ?? null)})`) : null,
  )
}

function replayBody(attempt: Attempt, previous: Attempt | null): Child {
  const lines = attempt.view?.replay?.pulls ?? []
  const before = previous === null ? new Map<VerdictKey, Verdict | null>() : verdictsOf(previous)
  if (attempt.view !== null && lines.length === 0) return h('p', { class: 'muted' }, 'No PR to replay.')
  return h(
    'div',
    { class: 'table-wrap', role: 'region', tabindex: '0', 'aria-label': `Attempt ${attempt.number}: one line per PR` },
    h(
      'table',
      { class: 'grid' },
      h('caption', { class: 'visually-hidden' }, `Attempt ${attempt.number}: verdict and certainty per PR and rule`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Pull request'),
          ...attempt.sent.map((c) => h('th', { scope: 'col' }, c.name)),
        ),
      ),
      h(
        'tbody',
        {},
        ...lines.map((line) =>
          h(
            'tr',
            { 'data-pr': String(line.pr), class: line.status === 'failed' ? 'row--error' : undefined },
            h(
              'th',
              { scope: 'row', class: 'grid-pull' },
              external(line.url, `#${line.pr}`),
              ' ',
              h('span', { class: 'grid-title' }, line.title),
            ),
            ...(line.status === 'failed' && (line.rows ?? []).length === 0
              ? [
                  h(
                    'td',
                    { colspan: String(Math.max(1, attempt.sent.length)), class: 'cell-failed' },
                    line.detail ?? 'failed',
                  ),
                ]
              : attempt.sent.map((classification) => gridCell(line, classification, before))),
          ),
        ),
      ),
    ),
  )
}

/** The article of one attempt. */
export function renderAttempt(
  attempt: Attempt,
  previous: Attempt | null,
  role: 'latest' | 'previous',
  config: UiConfig,
): HTMLElement {
  const edited = role === 'latest' ? edits(attempt, previous) : []
  const body =
    attempt.mode === 'replay'
      ? replayBody(attempt, previous)
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
    statusLine(attempt),
    edited.length > 0 && previous !== null
      ? h('p', { class: 'hint' }, `Edited since attempt ${previous.number}: ${edited.join(', ')}.`)
      : null,
    body,
  )
}

export type Attempts = {
  element: HTMLElement
  /** Adds an attempt the POST accepted and reads it until it ends. */
  add(attempt: Omit<Attempt, 'number' | 'view' | 'lost' | 'trouble'>): void
}

export function createAttempts(config: UiConfig): Attempts {
  const area = h('div', { class: 'attempts' })
  const empty = h('p', { class: 'muted' }, 'No run yet. Fill in a pull request and classifications, then run them.')
  const hint = h(
    'p',
    { class: 'hint', hidden: true },
    'The newest attempt is shown beside the one before it; a verdict that changed between them is marked “changed”.',
  )
  const element = h(
    'section',
    { class: 'results', 'aria-labelledby': 'results-title' },
    h('h2', { id: 'results-title' }, 'Results'),
    hint,
    empty,
    area,
  )
  const attempts: Attempt[] = []
  const shown = new Map<number, string>()

  function render(): void {
    const latest = attempts.at(-1) ?? null
    const previous = attempts.at(-2) ?? null
    empty.hidden = latest !== null
    hint.hidden = previous === null
    if (latest === null) return
    const key = (attempt: Attempt | null) =>
      JSON.stringify(attempt === null ? null : [attempt.view, attempt.lost, attempt.trouble])
    const signature = `${latest.number}:${key(latest)}|${previous?.number ?? ''}:${key(previous)}`
    if (shown.get(0) === signature) return
    shown.set(0, signature)
    replace(
      area,
      renderAttempt(latest, previous, 'latest', config),
      previous === null ? null : renderAttempt(previous, attempts.at(-3) ?? null, 'previous', config),
    )
  }

  async function follow(attempt: Attempt): Promise<void> {
    for (;;) {
      const answer = await getJson<TryOutView>(`api/review-classifier/try-out/${encodeURIComponent(attempt.id)}`)
      attempt.trouble = null
      if (answer.ok) attempt.view = answer.value
      else if (answer.problem.status === 404) attempt.lost = `The result is gone: ${answer.problem.detail}`
      else attempt.trouble = answer.problem.detail
      render()
      if (attempt.lost !== null || (attempt.view !== null && attempt.view.status !== 'running')) return
      await new Promise((resolve) => setTimeout(resolve, ATTEMPT_POLL_MS))
    }
  }

  return {
    element,
    add(started) {
      const attempt: Attempt = { ...started, number: attempts.length + 1, view: null, lost: null, trouble: null }
      attempts.push(attempt)
      render()
      if (attempts.length === 1) element.scrollIntoView({ block: 'nearest' })
      void follow(attempt)
    },
  }
}
