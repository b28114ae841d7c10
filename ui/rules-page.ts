/**
 * Rules (docs/behaviour.md, "Rule health"): pick a repo and see each of its
 * rules in production over the last 30 days, from
 * `GET /api/review-classifier/rules/health`. The repo lives in the fragment
 * (`#rules?repo=owner/name`), so a reload or a link keeps it.
 */
import type { RuleHealth, RulesHealthView } from '../core/review/rule-health-view.ts'
import { fitsSchema } from '../core/wire/decode.ts'
import { RulesHealthViewSchema } from '../core/wire/health-schemas.ts'
import { OpenPrAnswerSchema } from '../core/wire/page-schemas.ts'
import { getJson, postJson } from './api.ts'
import { h, replace } from './dom.ts'
import { plural } from './format.ts'
import { openPrAdvice, openPrPushed } from './open-pr-result.ts'
import { problemNote } from './problem-note.ts'
import { ruleHealthCard, shortDay } from './rule-health-card.ts'

export type RulesPage = { element: HTMLElement; show(): void; hide(): void }

function summary(view: RulesHealthView): string {
  const flagged = view.rules.filter((rule) => rule.flags.length > 0).length
  const inFile = view.rules.filter((rule) => rule.removed !== true).length
  const removed = view.rules.length - inFile
  const gone =
    removed === 0 ? '' : `, and ${plural(removed, 'rule')} counted that ${removed === 1 ? 'is' : 'are'} no longer in it`
  return `${plural(inFile, 'rule')} in ${view.path} on ${view.branch}${gone}; ${flagged === 0 ? 'none' : flagged} flagged. Counts of the last ${view.days} days (UTC), ${shortDay(view.since)} to ${shortDay(view.until)}.`
}

export function createRulesPage(): RulesPage {
  const repoInput = h('input', {
    id: 'rules-repo',
    type: 'text',
    name: 'repo',
    placeholder: 'owner/name',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
  })
  const show = h('button', { type: 'submit', class: 'primary', id: 'rules-show' }, 'Show its rules')
  const form = h(
    'form',
    { class: 'rules-pick', 'aria-label': 'Repo' },
    h('div', { class: 'field field--inline' }, h('label', { for: 'rules-repo' }, 'Repo'), repoInput),
    show,
  )
  const status = h(
    'p',
    { class: 'status', id: 'rules-health-status', role: 'status' },
    'Pick a repo to see how its rules behave in reviews.',
  )
  const notice = h('div', { class: 'notice-slot' })
  const list = h('ol', { class: 'rule-healths', 'aria-label': 'Rules' })
  const element = h(
    'section',
    { class: 'page', 'aria-labelledby': 'rules-title', hidden: true },
    h('div', { class: 'page-head' }, h('h1', { id: 'rules-title' }, 'Rules'), form),
    status,
    notice,
    list,
  )

  let shown = ''

  async function load(repo: string): Promise<void> {
    shown = repo
    show.disabled = true
    status.textContent = `Reading the rules of ${repo}…`
    const answer = await getJson('api/review-classifier/rules/health', fitsSchema(RulesHealthViewSchema), { repo })
    show.disabled = false
    if (repo !== shown) return
    if (!answer.ok) {
      replace(list)
      status.textContent = ''
      const lead =
        answer.problem.status === 404
          ? `${repo} has no rules this page can read.`
          : answer.problem.status === 400
            ? 'That is not a repo as owner/name.'
            : `The rules of ${repo} can't be shown.`
      replace(notice, problemNote(answer.problem, lead))
      return
    }
    replace(notice)
    const view = answer.value
    status.textContent = summary(view)
    replace(
      list,
      ...view.rules.map((rule) => ruleHealthCard(rule, view, { makeAdvisory: (r, b) => makeAdvisory(view, r, b) })),
    )
  }

  /** The existing open-a-PR flow, in two steps: what the branch changes, then the push on its own button. */
  function makeAdvisory(view: RulesHealthView, rule: RuleHealth, button: HTMLButtonElement): void {
    const slot = button.nextElementSibling
    if (slot === null) return
    const push = h('button', { type: 'button', class: 'primary' }, 'Push the branch')
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Not now')
    cancel.addEventListener('click', () => {
      replace(slot)
      button.focus()
    })
    push.addEventListener('click', async () => {
      push.disabled = true
      const classification = {
        name: rule.name,
        description: rule.description ?? '',
        threshold: rule.threshold ?? 0,
        polarity: rule.polarity ?? 'positive',
        ...(rule.paths === undefined ? {} : { paths: rule.paths }),
        mode: 'advisory',
      }
      const answer = await postJson(
        'api/review-classifier/open-pr',
        { repo: view.repo, classifications: [classification] },
        fitsSchema(OpenPrAnswerSchema),
      )
      replace(
        slot,
        answer.ok
          ? openPrPushed(answer.value, { labels: [], changes: false })
          : problemNote(answer.problem, openPrAdvice(answer.problem.status, view.repo)),
      )
    })
    replace(
      slot,
      h(
        'div',
        { class: 'notice' },
        h(
          'p',
          {},
          `The branch changes only ${rule.name} in ${view.path}: `,
          h('code', {}, 'mode: advisory'),
          '. Its failures are then reported without requesting changes.',
        ),
        h('div', { class: 'actions' }, push, cancel),
      ),
    )
    push.focus()
  }

  function readHash(): string | null {
    if (!location.hash.startsWith('#rules?')) return null
    return new URLSearchParams(location.hash.slice('#rules?'.length)).get('repo')
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const repo = repoInput.value.trim()
    if (repo === '') {
      repoInput.focus()
      return
    }
    history.replaceState(null, '', `#rules?${new URLSearchParams({ repo }).toString()}`)
    void load(repo)
  })

  return {
    element,
    show() {
      element.hidden = false
      const repo = readHash()
      if (repo !== null && repo !== shown) {
        repoInput.value = repo
        void load(repo)
      }
    },
    hide() {
      element.hidden = true
    },
  }
}
