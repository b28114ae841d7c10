/**
 * The try-out page (docs/behaviour.md, "Try-out"): pick a repo and a PR
 * (suggested, still free text), load or write classifications, run them on
 * the PR (once, repeatedly, or on the repo's last PRs), and when they answer
 * the way you want, open a PR that adds them to the repo's rules. Every
 * check the controller would make on the body runs here first, with core's
 * own code, and a refused field sends nothing.
 */
import { fitsSchema } from '../core/decode.ts'
import { OpenPrAnswerSchema, RepoRulesSchema, TryOutAcceptedSchema } from '../core/page-schemas.ts'
import type { UiConfig } from '../core/types.ts'
import { getJson, postJson } from './api.ts'
import { createAttempts } from './attempts.ts'
import { h, replace } from './dom.ts'
import { createEditor } from './editor.ts'
import { plural, shortSha } from './format.ts'
import { openPrAdvice, openPrPushed } from './open-pr-result.ts'
import { problemNote } from './problem-note.ts'
import { createPullFields } from './pull-fields.ts'

/** How the page names its run shortcut: ⌘ on a Mac, Ctrl elsewhere (both work everywhere). */
const RUN_KEYS = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘+Enter' : 'Ctrl+Enter'

export type TryOutPage = { element: HTMLElement; show(): void; hide(): void }

export function createTryOutPage(config: UiConfig): TryOutPage {
  const runButton = h(
    'button',
    { type: 'submit', class: 'primary', id: 'try-run', 'aria-keyshortcuts': 'Control+Enter Meta+Enter' },
    'Run',
  )
  const shortcut = h(
    'p',
    { class: 'hint run-shortcut', id: 'try-run-shortcut' },
    `${RUN_KEYS} runs from anywhere on the page.`,
  )
  const pull = createPullFields((label) => {
    runButton.textContent = label
  })

  const editor = createEditor()
  const loadRules = h('button', { type: 'button', class: 'secondary', id: 'load-rules' }, "Load the repo's rules")
  const rulesStatus = h('div', { class: 'rules-status', id: 'rules-status', 'aria-live': 'polite' })

  const openPrButton = h(
    'button',
    { type: 'button', class: 'secondary', id: 'try-open-pr' },
    'Open a PR with these classifications',
  )
  const actionStatus = h('div', { class: 'action-status', id: 'try-action-status', 'aria-live': 'polite' })
  const openPrResult = h('div', { class: 'open-pr-result', id: 'open-pr-result', 'aria-live': 'polite' })

  const attempts = createAttempts(config)

  const form = h(
    'form',
    { class: 'try-form', novalidate: true, 'aria-labelledby': 'try-title' },
    h(
      'div',
      { class: 'try-panels' },
      pull.element,
      h(
        'fieldset',
        { class: 'panel panel--rules' },
        h('legend', {}, 'Classifications'),
        h('div', { class: 'rules-actions' }, loadRules, rulesStatus),
        editor.element,
      ),
    ),
    h('div', { class: 'actions run-bar' }, runButton, openPrButton, shortcut, actionStatus),
    openPrResult,
  )
  form.addEventListener('keydown', (event) => {
    // A stray Enter in a one-line field would submit the whole run (10 rules × 10 repeats is 100 model calls).
    if (event.key === 'Enter' && !event.ctrlKey && !event.metaKey && event.target instanceof HTMLInputElement) {
      event.preventDefault()
    }
  })

  const element = h(
    'section',
    { class: 'page', 'aria-labelledby': 'try-title', hidden: true },
    h(
      'div',
      { class: 'page-head' },
      h('h1', { id: 'try-title' }, 'Try-out'),
      h(
        'p',
        { class: 'lead' },
        'Run classifications against a pull request without touching the repo: nothing is posted to the forge.',
      ),
    ),
    h('div', { class: 'try-layout' }, form, attempts.element),
  )
  element.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || event.isComposing) return
    event.preventDefault()
    if (!runButton.disabled) form.requestSubmit(runButton)
  })

  function say(slot: HTMLElement, ...children: Array<Node | string | null>): void {
    replace(slot, ...children)
  }

  loadRules.addEventListener('click', async () => {
    const name = pull.checkRepo()
    if (name === null) {
      pull.focusRepo()
      return
    }
    loadRules.disabled = true
    say(rulesStatus, h('p', { class: 'muted' }, `Loading the rules of ${name}…`))
    const answer = await getJson('api/review-classifier/rules', fitsSchema(RepoRulesSchema), { repo: name })
    loadRules.disabled = false
    if (answer.ok) {
      editor.load(answer.value.classifications)
      say(
        rulesStatus,
        h(
          'p',
          { class: 'ok' },
          `Loaded ${plural(answer.value.classifications.length, 'classification')} from ${answer.value.path} on ${answer.value.branch} at ${shortSha(answer.value.commit)}.`,
        ),
      )
      return
    }
    const lead =
      answer.problem.status === 404
        ? 'No rules to load.'
        : answer.problem.status === 422
          ? "The repo's rules file doesn't load."
          : "The rules can't be read."
    say(rulesStatus, problemNote(answer.problem, lead))
  })

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replace(openPrResult)
    const checked = pull.checkTarget()
    const classifications = editor.collect()
    if (!checked.ok || classifications === null) {
      say(
        actionStatus,
        h('p', { class: 'error', role: 'alert' }, 'Nothing was sent: fix the fields marked above first.'),
      )
      if (!checked.ok) checked.invalid.focus()
      return
    }
    const { target } = checked
    runButton.disabled = true
    say(actionStatus, h('p', { class: 'muted' }, 'Sending…'))
    const answer = await postJson(
      'api/review-classifier/try-out',
      { ...target.body, classifications },
      fitsSchema(TryOutAcceptedSchema),
    )
    runButton.disabled = false
    if (!answer.ok) {
      say(actionStatus, problemNote(answer.problem, 'The try-out was not started.'))
      return
    }
    say(
      actionStatus,
      h('p', { class: 'muted' }, 'Started: the attempt below fills in as each classification finishes.'),
    )
    attempts.add({
      id: answer.value.id,
      mode: target.mode,
      repo: target.repo,
      pr: target.pr,
      count: target.count,
      sent: classifications,
    })
  })

  openPrButton.addEventListener('click', async () => {
    const name = pull.checkRepo()
    const classifications = editor.collect()
    if (name === null || classifications === null) {
      say(
        actionStatus,
        h('p', { class: 'error', role: 'alert' }, 'Nothing was sent: fix the fields marked above first.'),
      )
      if (name === null) pull.focusRepo()
      return
    }
    openPrButton.disabled = true
    say(actionStatus, h('p', { class: 'muted' }, `Pushing a branch to ${name}…`))
    const answer = await postJson(
      'api/review-classifier/open-pr',
      { repo: name, classifications },
      fitsSchema(OpenPrAnswerSchema),
    )
    openPrButton.disabled = false
    replace(actionStatus)
    replace(
      openPrResult,
      answer.ok ? openPrPushed(answer.value) : problemNote(answer.problem, openPrAdvice(answer.problem.status, name)),
    )
  })

  let started = false
  return {
    element,
    show() {
      element.hidden = false
      if (!started) {
        started = true
        pull.suggestRepos()
      }
    },
    hide() {
      element.hidden = true
    },
  }
}
