/**
 * One rule on the Rules page (docs/behaviour.md, "Rule health"): its mode
 * and scope, its 30-day counts with a small bar per day, its flags in words,
 * and where to go next: its failing runs, the bench, and for a noisy
 * blocking rule a PR that makes it advisory.
 */

import { healthDays } from '../core/review/rule-health.ts'
import { flagWords, type RuleHealth, type RulesHealthView } from '../core/review/rule-health-view.ts'
import { h } from './dom.ts'
import { plural } from './format.ts'

const FLAG_NAMES = { noisy: 'Noisy', silent: 'Silent', unsure: 'Unsure', flaky: 'Flaky' } as const

/** `3 Dec`, in the page's language, for a UTC day. */
export function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' })
}

/** One bar per day of the 30, its height the day's asks against the busiest day, failures in their own colour. */
function dayBars(rule: RuleHealth, view: RulesHealthView): HTMLElement {
  const days = healthDays(view.until)
  const byDay = new Map(rule.by_day.map((day) => [day.day, day]))
  const busiest = Math.max(1, ...rule.by_day.map((day) => day.asked))
  const bars = days.map((day) => {
    const counts = byDay.get(day)
    const asked = counts?.asked ?? 0
    const failed = counts?.failed ?? 0
    const bar = h('span', { class: 'day-bar', title: `${shortDay(day)}: ${asked} asked, ${failed} failed` })
    const total = h('span', { class: 'day-bar-asked' })
    const failing = h('span', { class: 'day-bar-failed' })
    // CSSOM, not a style attribute: the pages' Content-Security-Policy allows no inline style.
    total.style.height = `${Math.round((100 * asked) / busiest)}%`
    failing.style.height = asked === 0 ? '0' : `${Math.round((100 * failed) / asked)}%`
    total.append(failing)
    bar.append(total)
    return bar
  })
  const askedDays = rule.by_day.filter((day) => day.asked > 0).length
  return h(
    'figure',
    { class: 'day-chart' },
    h(
      'div',
      {
        class: 'day-bars',
        role: 'img',
        'aria-label': `Asked on ${plural(askedDays, 'day')} of the last ${view.days}, ${shortDay(view.since)} to ${shortDay(view.until)}; the red part of a bar is its failures.`,
      },
      ...bars,
    ),
    h(
      'figcaption',
      { class: 'day-axis', 'aria-hidden': 'true' },
      h('span', {}, shortDay(view.since)),
      h('span', {}, 'asked a day, failures in red'),
      h('span', {}, 'today'),
    ),
  )
}

function counts(rule: RuleHealth): HTMLElement {
  const items: Array<[string, number]> = [
    ['asked', rule.asked],
    ['failed', rule.failed],
    ['passed', rule.passed],
    ['uncounted', rule.uncounted],
    ['unanswered', rule.unanswered],
    ['waived', rule.waived],
    ['fixed', rule.fixed],
  ]
  return h(
    'dl',
    { class: 'health-counts' },
    ...items.map(([term, value]) =>
      h('div', { class: `health-count health-count--${term}` }, h('dt', {}, term), h('dd', {}, value)),
    ),
  )
}

function scope(rule: RuleHealth): string {
  if (rule.paths === undefined || rule.paths.length === 0) return 'every file'
  return `paths ${rule.paths.join(', ')}`
}

export type RuleCardOptions = {
  /** Opens the PR that makes `rule` advisory (the page's two-step open-a-PR); none: no such button. */
  makeAdvisory?: (rule: RuleHealth, button: HTMLButtonElement) => void
}

export function ruleHealthCard(rule: RuleHealth, view: RulesHealthView, options: RuleCardOptions): HTMLLIElement {
  const mode = rule.mode ?? 'blocking'
  const runsQuery = new URLSearchParams({ repo: view.repo })
  const tryQuery = new URLSearchParams({ repo: view.repo, rules: rule.name })
  const failing = rule.failing_runs.slice(0, 5)
  const advisoryButton =
    // A rule that blocks (no mode is blocking): an advisory one has nothing to switch to.
    rule.flags.includes('noisy') && mode === 'blocking' && rule.removed !== true && options.makeAdvisory !== undefined
      ? h('button', { type: 'button', class: 'secondary make-advisory' }, 'Open a PR that makes it advisory')
      : null
  if (advisoryButton !== null) {
    advisoryButton.addEventListener('click', () => options.makeAdvisory?.(rule, advisoryButton))
  }
  return h(
    'li',
    { class: 'rule-health', 'data-rule': rule.name },
    h(
      'article',
      {},
      h(
        'h2',
        { class: 'rule-health-name' },
        h('span', { class: 'rule-health-title' }, rule.name),
        rule.removed === true
          ? h('span', { class: 'badge' }, 'no longer in the file')
          : h('span', { class: `badge badge--mode-${mode}` }, mode),
        rule.removed === true ? null : h('span', { class: 'badge' }, scope(rule)),
      ),
      rule.description === undefined ? null : h('p', { class: 'muted rule-health-question' }, rule.description),
      counts(rule),
      dayBars(rule, view),
      rule.flags.length === 0
        ? h(
            'p',
            { class: 'muted health-flags-none' },
            rule.asked === 0 && rule.waived === 0 ? 'Not asked in the last 30 days.' : 'No flags.',
          )
        : h(
            'ul',
            { class: 'health-flags' },
            ...rule.flags.map((flag) =>
              h(
                'li',
                { class: `health-flag health-flag--${flag}` },
                h('strong', {}, `${FLAG_NAMES[flag]}: `),
                flagWords(flag, rule),
              ),
            ),
          ),
      h(
        'p',
        { class: 'rule-health-links' },
        failing.length === 0
          ? h('a', { href: `#runs?${runsQuery.toString()}` }, `Runs of ${view.repo}`)
          : h(
              'span',
              {},
              'Failing runs: ',
              ...failing.flatMap((id, index) => [
                index === 0 ? null : ', ',
                h('a', { href: `#runs/${encodeURIComponent(id)}` }, `run ${index + 1}`),
              ]),
              rule.failing_runs.length > failing.length
                ? ` and ${rule.failing_runs.length - failing.length} more`
                : null,
            ),
        rule.removed === true ? null : ' · ',
        rule.removed === true ? null : h('a', { href: `#try-out?${tryQuery.toString()}` }, 'Try it out on the bench'),
      ),
      advisoryButton,
      h('div', { class: 'make-advisory-result', 'aria-live': 'polite' }),
    ),
  )
}
