/**
 * Recent runs (docs/behaviour.md, "Recent runs"): one card per recorded run,
 * newest first, each expandable to its rows; filters by repo and outcome;
 * the list is read again every few seconds, so new runs appear without a
 * reload. Cards already shown are kept as they are (a recorded run doesn't
 * change), so an expanded card and the focus stay put while the list grows.
 */
import { fitsSchema } from '../core/decode.ts'
import { RunListSchema } from '../core/page-schemas.ts'
import type { RunRecord } from '../core/run-record.ts'
import type { UiConfig } from '../core/types.ts'
import { type Answer, getJson } from './api.ts'
import { external, h, replace, uid } from './dom.ts'
import { dateTime, duration, plural, pullUrl, shortSha } from './format.ts'
import { rowsTable } from './rows.ts'

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

const OVERALL_LABEL = {
  approve: 'would approve',
  'request-changes': 'would request changes',
  'no-verdict': 'no verdict',
} as const

function outcomeLabel(outcome: RunRecord['outcome']): string {
  return OUTCOMES.find(([value]) => value === outcome)?.[1] ?? outcome
}

type Card = { record: RunRecord; element: HTMLLIElement }

export type RunsPage = { element: HTMLElement; show(): void; hide(): void }

export function createRunsPage(config: UiConfig): RunsPage {
  const repoFilter = h('select', { id: 'runs-repo' }, h('option', { value: '' }, 'All repos'))
  const outcomeFilter = h(
    'select',
    { id: 'runs-outcome' },
    h('option', { value: '' }, 'Any outcome'),
    ...OUTCOMES.map(([value, label]) => h('option', { value }, label)),
  )
  const status = h('p', { class: 'status', id: 'runs-status', role: 'status' }, 'Loading the runs…')
  const notice = h('div', { class: 'notice-slot' })
  const list = h('ol', { class: 'cards', 'aria-label': 'Recent runs, newest first' })
  const filteredEmpty = h(
    'p',
    { class: 'notice', hidden: true },
    'No run matches these filters. ',
    h('button', { type: 'button', class: 'link-button', on: { click: clearFilters } }, 'Show every run'),
  )
  const element = h(
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
      ),
    ),
    status,
    notice,
    filteredEmpty,
    list,
  )

  const cards = new Map<string, Card>()
  let order: string[] = []
  let loadedOnce = false
  let timer: ReturnType<typeof setTimeout> | null = null
  let visible = false

  repoFilter.addEventListener('change', applyFilters)
  outcomeFilter.addEventListener('change', applyFilters)

  function clearFilters(): void {
    repoFilter.value = ''
    outcomeFilter.value = ''
    applyFilters()
    repoFilter.focus()
  }

  function matches(record: RunRecord): boolean {
    return (
      (repoFilter.value === '' || record.repo === repoFilter.value) &&
      (outcomeFilter.value === '' || record.outcome === outcomeFilter.value)
    )
  }

  function applyFilters(): void {
    let shown = 0
    for (const id of order) {
      const card = cards.get(id)
      if (card === undefined) continue
      const show = matches(card.record)
      card.element.hidden = !show
      if (show) shown += 1
    }
    filteredEmpty.hidden = !(order.length > 0 && shown === 0)
  }

  function updateRepoOptions(): void {
    const repos = [...new Set(order.map((id) => cards.get(id)?.record.repo ?? ''))].filter((r) => r !== '').sort()
    const have = new Set([...repoFilter.options].map((option) => option.value))
    for (const repo of repos) if (!have.has(repo)) repoFilter.append(h('option', { value: repo }, repo))
  }

  function card(record: RunRecord, fresh: boolean): HTMLLIElement {
    const rowsId = uid('run-rows')
    const rows = record.rows ?? []
    // A try-out against the examples ran several labelled PRs and names them instead of one.
    const target = record.pr === undefined ? `, ${record.labelled_prs?.length ?? 0} labelled PRs` : ` #${record.pr}`
    const toggle = h(
      'button',
      { type: 'button', class: 'card-toggle', 'aria-expanded': 'false', 'aria-controls': rowsId },
      h('span', { class: 'card-title' }, `${record.repo}${target}`),
      h('span', { class: `badge badge--${record.outcome}` }, outcomeLabel(record.outcome)),
      // A try-out's outcome says only whether it ran; its verdict is the overall.
      record.trigger === 'try-out' && record.overall !== undefined
        ? h('span', { class: `badge badge--overall-${record.overall}` }, OVERALL_LABEL[record.overall])
        : null,
      fresh ? h('span', { class: 'badge badge--new' }, 'new') : null,
      h('span', { class: 'card-more' }, 'Show rows'),
    )
    const body = h(
      'div',
      { id: rowsId, class: 'card-rows', hidden: true },
      rows.length > 0
        ? h('div', { class: 'table-wrap' }, rowsTable(rows, { caption: `Rows of ${record.repo}${target}` }))
        : h('p', { class: 'muted' }, 'No rows: the classifier gave no answer for this run.'),
    )
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true'
      toggle.setAttribute('aria-expanded', String(open))
      body.hidden = !open
      const more = toggle.querySelector('.card-more')
      if (more !== null) more.textContent = open ? 'Hide rows' : 'Show rows'
    })
    const pull = record.pr === undefined ? null : pullUrl(config.forge_url, record.repo, record.pr)
    const meta = h(
      'dl',
      { class: 'meta' },
      record.pr === undefined
        ? metaItem('PRs', (record.labelled_prs ?? []).map((pr) => `#${pr}`).join(', '))
        : metaItem('PR', pull === null ? `#${record.pr}` : external(pull, `#${record.pr} on the forge`)),
      metaItem('Trigger', record.trigger === 'review' ? 'review request' : 'try-out'),
      metaItem('Classifications', String(rows.length)),
      metaItem(record.trigger === 'review' ? 'Requested by' : 'Run by', record.requester),
      metaItem(
        'When',
        h('time', { datetime: new Date(record.started_unix * 1000).toISOString() }, dateTime(record.started_unix)),
        ` (took ${duration(record.finished_unix - record.started_unix)})`,
      ),
      metaItem('Head', h('code', {}, shortSha(record.head_sha))),
      record.review_url === undefined ? null : metaItem('Review', external(record.review_url, 'the posted review')),
    )
    return h(
      'li',
      { class: 'card', 'data-run-id': record.id },
      h(
        'article',
        { 'aria-label': `${record.repo}${target}, ${outcomeLabel(record.outcome)}` },
        h('h2', { class: 'card-heading' }, toggle),
        meta,
        record.detail === undefined ? null : h('p', { class: 'detail' }, record.detail),
        body,
      ),
    )
  }

  function showRuns(records: readonly RunRecord[]): void {
    const previous = new Set(order)
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
    let anchor: Element | null = null
    for (const id of wanted) {
      const node = cards.get(id)?.element
      if (node === undefined) continue
      const expected: Element | null = anchor === null ? list.firstElementChild : anchor.nextElementSibling
      if (expected !== node) list.insertBefore(node, expected)
      anchor = node
    }
    order = wanted
    updateRepoOptions()
    applyFilters()
    const fresh = added.filter((id) => !previous.has(id))
    if (records.length === 0) {
      replace(
        notice,
        h(
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
        ),
      )
    } else {
      replace(notice)
    }
    const news = loadedOnce && fresh.length > 0 ? ` ${plural(fresh.length, 'new run')}.` : ''
    status.textContent = `${plural(records.length, 'run')}, newest first.${news} Updated ${new Date().toLocaleTimeString()}; the list refreshes every ${RUNS_REFRESH_MS / 1000} s.`
    loadedOnce = true
  }

  function showProblem(answer: Extract<Answer<unknown>, { ok: false }>): void {
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
    status.textContent = `Trying again every ${RUNS_REFRESH_MS / 1000} s.`
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

  return {
    element,
    show() {
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

function metaItem(term: string, ...value: Array<Node | string | null>): HTMLElement {
  return h('div', { class: 'meta-item' }, h('dt', {}, term), h('dd', {}, ...value))
}
