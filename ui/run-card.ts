/**
 * One recorded run as a card of the runs page: collapsed, it already says
 * which rules failed, the PR's title when known, when (relative, the exact
 * time and zone on hover) and at which head (linked to the forge); a button
 * expands it to its rows. Each card links to itself (`#runs/<id>`) and opens
 * the try-out on the same repo, PR and rules.
 */
import type { RunRecord } from '../core/run/run-record.ts'
import type { UiConfig } from '../core/wire/types.ts'
import { external, h, uid } from './dom.ts'
import { commitUrl, dateTime, duration, OVERALL_WORDS, plural, pullUrl, shortSha } from './format.ts'
import { rowsTable } from './rows.ts'
import { starterTerm, TRIGGER_WORDS, waivedList } from './waived.ts'

const EXACT = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' })
const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

/** "3 minutes ago", "yesterday": how long ago, in the reader's language. */
export function relativeTime(unixSeconds: number, now = Date.now()): string {
  const seconds = Math.round(unixSeconds - now / 1000)
  const steps: Array<[Intl.RelativeTimeFormatUnit, number]> = [
    ['second', 60],
    ['minute', 60],
    ['hour', 24],
    ['day', 7],
    ['week', 5],
  ]
  let value = seconds
  for (const [unit, size] of steps) {
    if (Math.abs(value) < size) return RELATIVE.format(value, unit)
    value = Math.round(value / size)
  }
  return dateTime(unixSeconds)
}

/** The try-out page's link for a run: its repo, PR and rule names. */
export function tryOutHref(record: RunRecord): string {
  const query = new URLSearchParams({ repo: record.repo })
  if (record.pr !== undefined) query.set('pr', String(record.pr))
  const names = (record.rows ?? []).map((row) => row.name)
  if (names.length > 0) query.set('rules', names.join(','))
  return `#try-out?${query.toString()}`
}

function metaItem(term: string, ...value: Array<Node | string | null>): HTMLElement {
  return h('div', { class: 'meta-item' }, h('dt', {}, term), h('dd', {}, ...value))
}

export type CardOptions = { fresh: boolean; config: UiConfig; outcome: string; title: string | undefined }

export function runCard(record: RunRecord, options: CardOptions): HTMLLIElement {
  const { config } = options
  const rowsId = uid('run-rows')
  const rows = record.rows ?? []
  // A try-out against the examples ran several labelled PRs and names them instead of one.
  const target = record.pr === undefined ? `, ${record.labelled_prs?.length ?? 0} labelled PRs` : ` #${record.pr}`
  const failing = rows.filter((row) => row.counted && row.fails && row.waived_by === undefined).map((row) => row.name)
  const uncounted = rows.filter((row) => !row.counted).length
  const toggle = h(
    'button',
    { type: 'button', class: 'card-toggle', 'aria-expanded': 'false', 'aria-controls': rowsId },
    h('span', { class: 'card-title' }, `${record.repo}${target}`),
    h('span', { class: `badge badge--${record.outcome}` }, options.outcome),
    // A try-out's outcome says only whether it ran; its verdict is the overall.
    record.trigger === 'try-out' && record.overall !== undefined
      ? h('span', { class: `badge badge--overall-${record.overall}` }, OVERALL_WORDS[record.overall])
      : null,
    options.fresh ? h('span', { class: 'badge badge--new' }, 'new') : null,
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
  const head = record.head_sha ?? ''
  const headUrl = head === '' ? null : commitUrl(config.forge_url, record.repo, head)
  const started = new Date(record.started_unix * 1000)
  const meta = h(
    'dl',
    { class: 'meta' },
    record.pr === undefined
      ? metaItem('PRs', (record.labelled_prs ?? []).map((pr) => `#${pr}`).join(', '))
      : metaItem('PR', pull === null ? `#${record.pr}` : external(pull, `#${record.pr} on the forge`)),
    metaItem('Trigger', TRIGGER_WORDS[record.trigger]),
    metaItem('Classifications', String(rows.length)),
    metaItem(starterTerm(record), record.requester),
    metaItem(
      'When',
      h(
        'time',
        { datetime: started.toISOString(), title: EXACT.format(started), class: 'relative-time' },
        relativeTime(record.started_unix),
      ),
      ` (took ${duration(record.finished_unix - record.started_unix)})`,
    ),
    metaItem(
      'Head',
      headUrl === null ? h('code', {}, shortSha(record.head_sha)) : external(headUrl, h('code', {}, shortSha(head))),
    ),
    record.review_url === undefined ? null : metaItem('Review', external(record.review_url, 'the posted review')),
  )
  return h(
    'li',
    { class: 'card', 'data-run-id': record.id, id: `run-${record.id}` },
    h(
      'article',
      { 'aria-label': `${record.repo}${target}, ${options.outcome}` },
      h('h2', { class: 'card-heading' }, toggle),
      options.title === undefined ? null : h('p', { class: 'card-pr-title' }, options.title),
      h(
        'p',
        { class: 'card-failing' },
        failing.length > 0 ? `Fails: ${failing.join(', ')}.` : rows.length > 0 ? 'No rule fails.' : null,
        uncounted > 0 ? ` ${plural(uncounted, 'rule')} not counted (open the rows for why).` : null,
      ),
      waivedList(record),
      meta,
      record.detail === undefined ? null : h('p', { class: 'detail' }, record.detail),
      h(
        'p',
        { class: 'card-links' },
        h('a', { href: `#runs/${encodeURIComponent(record.id)}`, class: 'run-link' }, 'Link to this run'),
        ' · ',
        h('a', { href: tryOutHref(record), class: 'open-try-out' }, 'Open in try-out'),
      ),
      body,
    ),
  )
}
