/**
 * The try-out's results: each run from the page is an attempt, read back
 * from the try-out GET until it ends, its rows shown as they finish. The
 * newest attempt is shown in full with what changed since the one before
 * marked (attempt-view.ts), and every attempt side by side in a matrix
 * (attempts-matrix.ts), so an author sees what each edit did.
 */
import { fitsSchema } from '../core/wire/decode.ts'
import { TryOutViewSchema } from '../core/wire/page-schemas.ts'
import type { UiConfig } from '../core/wire/types.ts'
import { getJson } from './api.ts'
import type { Attempt } from './attempt.ts'
import { renderAttempt } from './attempt-view.ts'
import { attemptsMatrix } from './attempts-matrix.ts'
import { h } from './dom.ts'
import { overallWords } from './format.ts'
import type { LabelBook } from './label-book.ts'
import { patchChildren } from './patch.ts'

/** How often a running attempt is read again. */
export const ATTEMPT_POLL_MS = 600

export type Attempts = {
  element: HTMLElement
  /** Adds an attempt the POST accepted and reads it until it ends. */
  add(attempt: Omit<Attempt, 'number' | 'view' | 'lost' | 'trouble'>): void
  /** Shows attempts kept from before a reload (none announced again), reading on those still running. */
  restore(kept: readonly Attempt[]): void
  /** Every attempt, oldest first. */
  list(): readonly Attempt[]
  /** Called whenever an attempt is added or its result read. */
  onChange(listener: () => void): void
}

/** How an ended attempt is announced, after its number. */
function endWords(attempt: Attempt): string {
  if (attempt.lost !== null) return `can't be read: ${attempt.lost}`
  const view = attempt.view
  if (view?.status === 'failed') return `failed: ${view.detail ?? 'no reason given'}`
  if (attempt.mode === 'pull') return `done: ${overallWords(view?.overall ?? null)}.`
  return 'done.'
}

/**
 * `restore` puts an attempt's classifications back in the editor (the matrix's button); `labels`
 * are the replay cells' labels, drawn again whenever one is set or an examples file is read.
 */
export function createAttempts(config: UiConfig, restore: (attempt: Attempt) => void, labels: LabelBook): Attempts {
  const area = h('div', { class: 'attempts' })
  const empty = h('p', { class: 'muted' }, 'No run yet. Fill in a pull request and classifications, then run them.')
  const hint = h(
    'p',
    { class: 'hint', hidden: true },
    'The newest attempt is shown in full, marked with what changed since the one before; under it, every attempt side by side.',
  )
  // The one place an attempt's end is said, once: the attempts themselves are patched in silence.
  const announcer = h('p', { class: 'visually-hidden', id: 'attempt-announcer', role: 'status' })
  const announced = new Set<number>()
  const element = h(
    'section',
    { class: 'results', 'aria-labelledby': 'results-title' },
    h('h2', { id: 'results-title' }, 'Results'),
    announcer,
    hint,
    empty,
    area,
  )
  let attempts: Attempt[] = []
  const listeners: Array<() => void> = []
  const changed = () => {
    for (const listener of listeners) listener()
  }
  const shown = new Map<number, string>()
  labels.onChange(() => render())

  function render(): void {
    const latest = attempts.at(-1) ?? null
    const previous = attempts.at(-2) ?? null
    empty.hidden = latest !== null
    hint.hidden = previous === null
    if (latest === null) return
    // A replay's cells start from the repo's examples file, read once labelling has started on the repo
    // (a label kept, or a label's select focused): a repo with none answers a 404 the console would log.
    if (latest.mode === 'replay' && labels.list().some((label) => label.repo === latest.repo)) {
      void labels.readFile(latest.repo)
    }
    // The labels given in the repo's PR comments join the page's, once per repo (comment-labels.ts).
    if (latest.mode === 'replay') void labels.readComments(latest.repo)
    const key = (attempt: Attempt | null) =>
      JSON.stringify(attempt === null ? null : [attempt.view, attempt.lost, attempt.trouble])
    const signature = `${attempts.map((attempt) => `${attempt.number}:${key(attempt)}`).join('|')}|${labels.signature()}`
    if (shown.get(0) === signature) return
    shown.set(0, signature)
    const fresh = h(
      'div',
      {},
      renderAttempt(latest, previous, 'latest', config, labels),
      attemptsMatrix(attempts, restore),
    )
    patchChildren(area, fresh)
  }

  function announce(attempt: Attempt): void {
    const ended = attempt.lost !== null || (attempt.view !== null && attempt.view.status !== 'running')
    if (!ended || announced.has(attempt.number)) return
    announced.add(attempt.number)
    announcer.textContent = `Attempt ${attempt.number} ${endWords(attempt)}`
  }

  async function follow(attempt: Attempt): Promise<void> {
    for (;;) {
      const answer = await getJson(
        `api/review-classifier/try-out/${encodeURIComponent(attempt.id)}`,
        fitsSchema(TryOutViewSchema),
      )
      attempt.trouble = null
      if (answer.ok) attempt.view = answer.value
      else if (answer.problem.status === 404) attempt.lost = `The result is gone: ${answer.problem.detail}`
      else attempt.trouble = answer.problem.detail
      render()
      announce(attempt)
      changed()
      if (attempt.lost !== null || (attempt.view !== null && attempt.view.status !== 'running')) return
      await new Promise((resolve) => setTimeout(resolve, ATTEMPT_POLL_MS))
    }
  }

  return {
    element,
    add(started) {
      const attempt: Attempt = {
        ...started,
        number: (attempts.at(-1)?.number ?? 0) + 1,
        view: null,
        lost: null,
        trouble: null,
      }
      attempts.push(attempt)
      render()
      changed()
      if (attempts.length === 1) element.scrollIntoView({ block: 'nearest' })
      void follow(attempt)
    },
    restore(kept) {
      attempts = kept.map((attempt) => ({ ...attempt, trouble: null }))
      for (const attempt of attempts) {
        const running = attempt.lost === null && (attempt.view === null || attempt.view.status === 'running')
        if (!running) announced.add(attempt.number)
      }
      render()
      for (const attempt of attempts) if (!announced.has(attempt.number)) void follow(attempt)
    },
    list: () => attempts,
    onChange(listener) {
      listeners.push(listener)
    },
  }
}
