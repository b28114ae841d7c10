/**
 * Recent runs (docs/behaviour.md, "Recent runs"): one card per recorded run,
 * newest first, each expandable to its rows; filters by repo and outcome;
 * the list is read again every few seconds, so new runs appear without a
 * reload. Cards already shown are kept as they are (a recorded run doesn't
 * change), so an expanded card and the focus stay put while the list grows.
 */

import type { RunRecord } from '../core/run/run-record.ts'
import { fitsSchema } from '../core/wire/decode.ts'
import { PullListSchema, RunListSchema } from '../core/wire/page-schemas.ts'
import type { UiConfig } from '../core/wire/types.ts'
import { type Answer, getJson } from './api.ts'
import { h, replace } from './dom.ts'
import { runCard } from './run-card.ts'
import { runsStatusLine } from './runs-status.ts'

/** How often the list is read again while the page is open. */
export const RUNS_REFRESH_MS = 5_000

const OUTCOMES = [
  ['approved', 'approved'],
  ['changes-requested', 'changes requested'],
  ['no-verdict', 'no verdict'],
  ['queue-full', 'queue full'],
  ['post-failed', 'post failed'],
  ['done', 'try-out done'],
  ['failed', 'try-out failed'],
] as const satisfies ReadonlyArray<readonly [RunRecord['outcome'], string]>

function outcomeLabel(outcome: RunRecord['outcome']): string {
  return OUTCOMES.find(([value]) => value === outcome)?.[1] ?? outcome
}

type Card = { record: RunRecord; element: HTMLLIElement }

export type RunsPage = { element: HTMLElement; show(): void; hide(): void }

/** The filters' selects: repo (its options come with the runs), outcome and trigger. */
function runsFilters() {
  const repoFilter = h('select', { id: 'runs-repo' }, h('option', { value: '' }, 'All repos'))
  const outcomeFilter = h(
    'select',
    { id: 'runs-outcome' },
    h('option', { value: '' }, 'Any outcome'),
    ...OUTCOMES.map(([value, label]) => h('option', { value }, label)),
  )
  const triggerFilter = h(
    'select',
    { id: 'runs-trigger' },
    h('option', { value: '' }, 'Any trigger'),
    h('option', { value: 'review' }, 'review request'),
    h('option', { value: 'try-out' }, 'try-out'),
    h('option', { value: 'waiver' }, 'waiver'),
  )
  return { repoFilter, outcomeFilter, triggerFilter }
}

/** The page: its head with the filters, then the status line, the notice slot and the list. */
function runsPageElement(
  { repoFilter, outcomeFilter, triggerFilter }: ReturnType<typeof runsFilters>,
  status: HTMLElement,
  notice: HTMLElement,
  filteredEmpty: HTMLElement,
  list: HTMLElement,
): HTMLElement {
  return h(
    'section',
    { class: 'page', 'aria-labelledby': 'runs-title' },
    h(
      'div',
      { class: 'page-head' },
      h('h1', { id: 'runs-title' }, 'Recent runs'),
      h(
        'div',
        { class: 'filters', role: 'group', 'aria-label': 'Filters' },
        h('div', { class: 'field field--inline' }, h('label', { for: 'runs-repo' }, 'Repo'), repoFilter),
        h('div', { class: 'field field--inline' }, h('label', { for: 'runs-outcome' }, 'Outcome'), outcomeFilter),
        h('div', { class: 'field field--inline' }, h('label', { for: 'runs-trigger' }, 'Trigger'), triggerFilter),
      ),
    ),
    status,
    notice,
    filteredEmpty,
    list,
  )
}

/** The filters in the fragment (`#runs?repo=…&outcome=…&trigger=…`), so a filtered list can be linked. */
function writeUrl(filters: Record<string, HTMLSelectElement>): void {
  const query = new URLSearchParams()
  for (const [key, select] of Object.entries(filters)) if (select.value !== '') query.set(key, select.value)
  const hash = query.size > 0 ? `#runs?${query.toString()}` : '#runs'
  if (location.hash !== hash) history.replaceState(null, '', hash)
}

/** `#runs/<id>`: that run's card opened, in view and focused, once it is in the list. */
function openLinked(cards: ReadonlyMap<string, Card>): void {
  if (!location.hash.startsWith('#runs/')) return
  const id = decodeURIComponent(location.hash.slice('#runs/'.length))
  const linked = cards.get(id)
  if (linked === undefined) return
  const toggle = linked.element.querySelector<HTMLButtonElement>('.card-toggle')
  if (toggle !== null && toggle.getAttribute('aria-expanded') !== 'true') toggle.click()
  linked.element.classList.add('card--linked')
  toggle?.focus()
  linked.element.scrollIntoView({ block: 'start' })
}

/** What the list says before any run is recorded. */
function noRunsNotice(): HTMLElement {
  return h(
    'div',
    { class: 'notice' },
    h('p', {}, h('strong', {}, 'No runs yet.')),
    h(
      'p',
      {},
      'A run is recorded when someone requests review-classifier as a reviewer on a pull request, or when you ',
      h('a', { href: '#try-out' }, 'run a try-out'),
      '.',
    ),
  )
}

/** Puts `list`'s cards in the order of `wanted`, moving only those out of place. */
function placeCards(list: HTMLElement, cards: ReadonlyMap<string, Card>, wanted: readonly string[]): void {
  let anchor: Element | null = null
  for (const id of wanted) {
    const node = cards.get(id)?.element
    if (node === undefined) continue
    const expected: Element | null = anchor === null ? list.firstElementChild : anchor.nextElementSibling
    if (expected !== node) list.insertBefore(node, expected)
    anchor = node
  }
}

/** The filters the fragment names, each set on its select when the option exists; the rest wait. */
function readUrl(filters: Record<string, HTMLSelectElement>): Record<string, string> {
  const hash = location.hash
  const wanted: Record<string, string> = {}
  if (hash.startsWith('#runs?')) {
    for (const [key, value] of new URLSearchParams(hash.slice('#runs?'.length))) wanted[key] = value
  }
  for (const [key, select] of Object.entries(filters)) {
    const value = wanted[key] ?? ''
    if ([...select.options].some((option) => option.value === value)) select.value = value
  }
  return wanted
}

export function createRunsPage(config: UiConfig): RunsPage {
  const { repoFilter, outcomeFilter, triggerFilter } = runsFilters()
  const status = h('p', { class: 'status', id: 'runs-status', role: 'status' }, 'Loading the runs…')
  const notice = h('div', { class: 'notice-slot' })
  const list = h('ol', { class: 'cards', 'aria-label': 'Recent runs, newest first' })
  const filteredEmpty = h(
    'p',
    { class: 'notice', hidden: true },
    'No run matches these filters. ',
    h('button', { type: 'button', class: 'link-button', on: { click: clearFilters } }, 'Show every run'),
  )
  const element = runsPageElement({ repoFilter, outcomeFilter, triggerFilter }, status, notice, filteredEmpty, list)

  const cards = new Map<string, Card>()
  let order: string[] = []
  let loadedOnce = false
  /** Whether the last read of the runs succeeded: only then does the status line count them. */
  let loadedOk = false
  let timer: ReturnType<typeof setTimeout> | null = null
  let visible = false

  const filters = { repo: repoFilter, outcome: outcomeFilter, trigger: triggerFilter }
  // PR titles by repo and number, from the open PRs of each repo shown (a merged PR's title isn't listed).
  const titles = new Map<string, string>()
  const titledRepos = new Set<string>()
  const titleKey = (record: Pick<RunRecord, 'repo' | 'pr'>) => `${record.repo}#${record.pr}`
  /** A filter from the URL waits for its option to exist (a repo's comes with its first run). */
  let wanted: Record<string, string> = {}

  for (const select of Object.values(filters)) {
    select.addEventListener('change', () => {
      applyFilters()
      writeUrl(filters)
    })
  }

  async function fetchTitles(repo: string): Promise<void> {
    if (titledRepos.has(repo)) return
    titledRepos.add(repo)
    const answer = await getJson('api/pulls', fitsSchema(PullListSchema), { repo })
    if (!answer.ok) return
    for (const pull of answer.value) titles.set(`${repo}#${pull.number}`, pull.title)
    for (const { record, element } of cards.values()) {
      const title = titles.get(titleKey(record))
      const heading = element.querySelector('.card-heading')
      if (title === undefined || heading === null || element.querySelector('.card-pr-title') !== null) continue
      heading.after(h('p', { class: 'card-pr-title' }, title))
    }
  }

  function clearFilters(): void {
    repoFilter.value = ''
    outcomeFilter.value = ''
    triggerFilter.value = ''
    applyFilters()
    writeUrl(filters)
    repoFilter.focus()
  }

  function matches(record: RunRecord): boolean {
    return (
      (repoFilter.value === '' || record.repo === repoFilter.value) &&
      (outcomeFilter.value === '' || record.outcome === outcomeFilter.value) &&
      (triggerFilter.value === '' || record.trigger === triggerFilter.value)
    )
  }

  function applyFilters(): void {
    const all: RunRecord[] = []
    const shown: RunRecord[] = []
    for (const id of order) {
      const card = cards.get(id)
      if (card === undefined) continue
      const show = matches(card.record)
      card.element.hidden = !show
      all.push(card.record)
      if (show) shown.push(card.record)
    }
    filteredEmpty.hidden = !(order.length > 0 && shown.length === 0)
    // Said only when it changes: a live region rewritten every refresh is announced every refresh.
    const said = runsStatusLine(all, shown, RUNS_REFRESH_MS / 1000)
    if (loadedOk && status.textContent !== said) status.textContent = said
  }

  function updateRepoOptions(): void {
    const repos = [...new Set(order.map((id) => cards.get(id)?.record.repo ?? ''))].filter((r) => r !== '').sort()
    const have = new Set([...repoFilter.options].map((option) => option.value))
    for (const repo of repos) if (!have.has(repo)) repoFilter.append(h('option', { value: repo }, repo))
    if (wanted.repo !== undefined && repos.includes(wanted.repo) && repoFilter.value === '')
      repoFilter.value = wanted.repo
    for (const repo of repos) void fetchTitles(repo)
  }

  function card(record: RunRecord, fresh: boolean): HTMLLIElement {
    return runCard(record, {
      fresh,
      config,
      outcome: outcomeLabel(record.outcome),
      title: titles.get(titleKey(record)),
    })
  }

  function showRuns(records: readonly RunRecord[]): void {
    loadedOk = true
    const added: string[] = []
    for (const record of records) {
      if (cards.has(record.id)) continue
      cards.set(record.id, { record, element: card(record, loadedOnce) })
      added.push(record.id)
    }
    const wanted = records.map((record) => record.id)
    for (const id of order) if (!wanted.includes(id)) cards.get(id)?.element.remove()
    for (const id of [...cards.keys()]) if (!wanted.includes(id)) cards.delete(id)
    // Newest first, as the route answers; cards already in place are moved, never rebuilt.
    placeCards(list, cards, wanted)
    order = wanted
    updateRepoOptions()
    applyFilters()
    if (!loadedOnce) openLinked(cards)
    if (records.length === 0) {
      replace(notice, noRunsNotice())
    } else {
      replace(notice)
    }
    loadedOnce = true
  }

  function showProblem(answer: Extract<Answer<unknown>, { ok: false }>): void {
    loadedOk = false
    const { status: code, detail } = answer.problem
    const why =
      code === 503
        ? 'The run store is out of reach'
        : code === 0
          ? 'The controller did not answer'
          : `The runs can't be read (${code})`
    replace(
      notice,
      h('div', { class: 'notice notice--error', role: 'alert' }, h('p', {}, h('strong', {}, `${why}: `), detail)),
    )
    const said = `Trying again every ${RUNS_REFRESH_MS / 1000} s.`
    if (status.textContent !== said) status.textContent = said
  }

  async function refresh(): Promise<void> {
    const answer = await getJson('api/review-classifier/runs', fitsSchema(RunListSchema))
    if (answer.ok) showRuns(Array.isArray(answer.value) ? answer.value : [])
    else showProblem(answer)
  }

  function schedule(): void {
    if (!visible) return
    timer = setTimeout(async () => {
      timer = null
      // A tab in the background reads nothing; it catches up when it shows again.
      if (!document.hidden) await refresh()
      schedule()
    }, RUNS_REFRESH_MS)
  }

  document.addEventListener('visibilitychange', () => {
    if (visible && !document.hidden) void refresh()
  })

  window.addEventListener('hashchange', () => {
    if (!visible) return
    wanted = readUrl(filters)
    applyFilters()
    openLinked(cards)
  })

  return {
    element,
    show() {
      wanted = readUrl(filters)
      if (visible) return
      visible = true
      element.hidden = false
      void refresh().then(schedule)
    },
    hide() {
      visible = false
      element.hidden = true
      if (timer !== null) clearTimeout(timer)
      timer = null
    },
  }
}
