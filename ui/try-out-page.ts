/**
 * The try-out page (docs/behaviour.md, "Try-out"): pick a repo and a PR
 * (suggested, still free text), load or write classifications, run them on
 * the PR (once, repeatedly, or on the repo's last PRs), and when they answer
 * the way you want, open a PR that adds them to the repo's rules. Every
 * check the controller would make on the body runs here first, with core's
 * own code, and a refused field sends nothing.
 */
import { fitsSchema } from '../core/decode.ts'
import { REPEAT_MAX, REPLAY_MAX } from '../core/limits.ts'
import {
  OpenPrAnswerSchema,
  PullListSchema,
  PullReposSchema,
  RepoRulesSchema,
  TryOutAcceptedSchema,
} from '../core/page-schemas.ts'
import { parseRepoValue } from '../core/repo.ts'
import type { UiConfig } from '../core/types.ts'
import { getJson, type Problem, postJson } from './api.ts'
import type { AttemptMode } from './attempt.ts'
import { createAttempts } from './attempts.ts'
import { external, h, replace } from './dom.ts'
import { createEditor } from './editor.ts'
import { plural, shortSha } from './format.ts'

export type TryOutPage = { element: HTMLElement; show(): void; hide(): void }

/** What a refused open-pr means for the person who asked, by status; the route's detail follows. */
function openPrAdvice(status: number, repo: string): string {
  switch (status) {
    case 400:
      return 'The controller refused the classifications.'
    case 401:
      return 'The controller did not learn who you are: open these pages through the gateway (or the local proxy), which names you.'
    case 403:
      return `The forge refused the push: review-classifier needs write access to ${repo}. A repo admin adds it as a collaborator with write access in the repo's settings.`
    case 404:
      return `The forge doesn't know ${repo} (or hides it from the controller), or its default branch has no commit yet.`
    case 409:
      return 'The push collided with the forge: log in to the forge once so it has an account named like you, or load the rules again if the file changed meanwhile, then try again.'
    case 422:
      return "The repo's rules file can't take these classifications as they are."
    case 503:
      return 'The forge, or a token the controller needs, is not available right now; try again in a minute.'
    case 0:
      return 'The controller did not answer.'
    default:
      // A 2xx here is an answer the page can't read: the push may well have happened.
      return status >= 200 && status < 300
        ? "The branch may have been pushed, but the controller's answer can't be read: look for it on the forge."
        : 'The forge refused the push.'
  }
}

function problemNote(problem: Problem, lead: string): HTMLElement {
  return h(
    'div',
    { class: 'notice notice--error', role: 'alert' },
    h('p', {}, h('strong', {}, lead)),
    h('p', {}, `The controller says (${problem.status === 0 ? 'no answer' : problem.status}): `, problem.detail),
  )
}

export function createTryOutPage(config: UiConfig): TryOutPage {
  // The pull request fields.
  const repo = h('input', {
    id: 'try-repo',
    type: 'text',
    list: 'try-repo-list',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'owner/name',
    'aria-describedby': 'try-repo-hint try-repo-error',
  })
  const repoList = h('datalist', { id: 'try-repo-list' })
  const repoHint = h(
    'p',
    { class: 'hint', id: 'try-repo-hint' },
    'Repos with open PRs are suggested; any owner/name works.',
  )
  const repoError = h('p', { class: 'error', id: 'try-repo-error' })

  const modeOne = h('input', { type: 'radio', name: 'try-mode', id: 'try-mode-one', value: 'pull', checked: true })
  const modeReplay = h('input', { type: 'radio', name: 'try-mode', id: 'try-mode-replay', value: 'replay' })

  const pr = h('input', {
    id: 'try-pr',
    type: 'text',
    inputmode: 'numeric',
    list: 'try-pr-list',
    autocomplete: 'off',
    'aria-describedby': 'try-pr-hint try-pr-error',
  })
  const prList = h('datalist', { id: 'try-pr-list' })
  const prHint = h(
    'p',
    { class: 'hint', id: 'try-pr-hint' },
    'Open PRs are suggested; a merged or closed one works too.',
  )
  const prError = h('p', { class: 'error', id: 'try-pr-error' })

  const repeat = h('input', {
    id: 'try-repeat',
    type: 'text',
    inputmode: 'numeric',
    value: '1',
    autocomplete: 'off',
    'aria-describedby': 'try-repeat-hint try-repeat-error',
  })
  const repeatError = h('p', { class: 'error', id: 'try-repeat-error' })

  const replay = h('input', {
    id: 'try-replay',
    type: 'text',
    inputmode: 'numeric',
    value: '5',
    autocomplete: 'off',
    'aria-describedby': 'try-replay-hint try-replay-error',
  })
  const replayError = h('p', { class: 'error', id: 'try-replay-error' })

  const onePrFields = h(
    'div',
    { class: 'field-row' },
    h('div', { class: 'field' }, h('label', { for: 'try-pr' }, 'PR number'), pr, prList, prHint, prError),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'try-repeat' }, 'Ask each classification'),
      h('div', { class: 'with-unit' }, repeat, h('span', {}, 'times')),
      h(
        'p',
        { class: 'hint', id: 'try-repeat-hint' },
        `1 to ${REPEAT_MAX}; more than once shows how stable each answer is.`,
      ),
      repeatError,
    ),
  )
  const replayFields = h(
    'div',
    { class: 'field-row', hidden: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'try-replay' }, 'How many of the last PRs'),
      replay,
      h('p', { class: 'hint', id: 'try-replay-hint' }, `1 to ${REPLAY_MAX}, open or merged, newest first.`),
      replayError,
    ),
  )

  const editor = createEditor()
  const loadRules = h('button', { type: 'button', class: 'secondary', id: 'load-rules' }, "Load the repo's rules")
  const rulesStatus = h('div', { class: 'rules-status', id: 'rules-status', 'aria-live': 'polite' })

  const runButton = h('button', { type: 'submit', class: 'primary', id: 'try-run' }, 'Run')
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
      h(
        'fieldset',
        { class: 'panel panel--pull' },
        h('legend', {}, 'Pull request'),
        h('div', { class: 'field' }, h('label', { for: 'try-repo' }, 'Repo'), repo, repoList, repoHint, repoError),
        h(
          'fieldset',
          { class: 'mode' },
          h('legend', {}, 'Run against'),
          h('div', { class: 'radio' }, modeOne, h('label', { for: 'try-mode-one' }, 'One pull request')),
          h(
            'div',
            { class: 'radio' },
            modeReplay,
            h('label', { for: 'try-mode-replay' }, "The repo's last PRs (replay)"),
          ),
        ),
        onePrFields,
        replayFields,
      ),
      h(
        'fieldset',
        { class: 'panel panel--rules' },
        h('legend', {}, 'Classifications'),
        h('div', { class: 'rules-actions' }, loadRules, rulesStatus),
        editor.element,
      ),
    ),
    h('div', { class: 'actions' }, runButton, openPrButton),
    actionStatus,
    openPrResult,
  )

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
    form,
    attempts.element,
  )

  function mode(): AttemptMode {
    if (modeReplay.checked) return 'replay'
    return repeat.value.trim() !== '' && repeat.value.trim() !== '1' ? 'repeat' : 'pull'
  }

  function updateMode(): void {
    const replaying = modeReplay.checked
    onePrFields.hidden = replaying
    replayFields.hidden = !replaying
    const k = Number(repeat.value)
    const n = Number(replay.value)
    runButton.textContent = replaying
      ? Number.isInteger(n) && n >= 1
        ? `Replay the last ${plural(n, 'PR')}`
        : 'Replay'
      : Number.isInteger(k) && k > 1
        ? `Run ${k} times`
        : 'Run'
  }
  modeOne.addEventListener('change', updateMode)
  modeReplay.addEventListener('change', updateMode)
  repeat.addEventListener('input', updateMode)
  replay.addEventListener('input', updateMode)

  function setError(control: HTMLElement, slot: HTMLElement, message: string | null): boolean {
    replace(slot, message ?? '')
    if (message === null) control.removeAttribute('aria-invalid')
    else control.setAttribute('aria-invalid', 'true')
    return message === null
  }

  function checkRepo(): string | null {
    const parsed = parseRepoValue(repo.value.trim())
    setError(
      repo,
      repoError,
      parsed.ok ? null : repo.value.trim() === '' ? 'Enter the repo as owner/name.' : parsed.error,
    )
    return parsed.ok ? repo.value.trim() : null
  }

  function wholeIn(control: HTMLInputElement, slot: HTMLElement, what: string, max: number): number | null {
    const text = control.value.trim()
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN
    const ok = Number.isInteger(value) && value >= 1 && value <= max
    setError(control, slot, ok ? null : `${what} must be a whole number from 1 to ${max}.`)
    return ok ? value : null
  }

  function checkPr(): number | null {
    const text = pr.value.trim()
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN
    const ok = Number.isSafeInteger(value) && value >= 1
    setError(pr, prError, ok ? null : 'Enter the PR number, a whole number from 1.')
    return ok ? value : null
  }

  function say(slot: HTMLElement, ...children: Array<Node | string | null>): void {
    replace(slot, ...children)
  }

  // Suggestions: the repos with open PRs, and a repo's open PRs; the fields stay free text.
  let suggestedFor = ''
  let suggestTimer: ReturnType<typeof setTimeout> | null = null
  async function suggestRepos(): Promise<void> {
    const answer = await getJson('api/pulls/repos', fitsSchema(PullReposSchema))
    if (answer.ok) {
      replace(repoList, ...answer.value.map((name) => h('option', { value: name })))
      repoHint.textContent = 'Repos with open PRs are suggested; any owner/name works.'
    } else {
      repoHint.textContent = `No suggestions (${answer.problem.detail}); any owner/name works.`
    }
  }
  async function suggestPulls(): Promise<void> {
    const name = repo.value.trim()
    if (name === suggestedFor || !parseRepoValue(name).ok) return
    suggestedFor = name
    const answer = await getJson('api/pulls', fitsSchema(PullListSchema), { repo: name })
    if (name !== repo.value.trim()) return
    if (answer.ok) {
      replace(
        prList,
        ...answer.value.map((pull) =>
          h('option', { value: String(pull.number), label: `#${pull.number} ${pull.title}` }),
        ),
      )
      prHint.textContent =
        answer.value.length > 0
          ? `${plural(answer.value.length, 'open PR')} suggested; a merged or closed one works too.`
          : 'No open PR to suggest; a merged or closed one works too.'
    } else {
      replace(prList)
      prHint.textContent = `No suggestions (${answer.problem.detail}); any PR number works.`
    }
  }
  repo.addEventListener('input', () => {
    if (suggestTimer !== null) clearTimeout(suggestTimer)
    suggestTimer = setTimeout(() => void suggestPulls(), 250)
  })
  repo.addEventListener('change', () => void suggestPulls())

  loadRules.addEventListener('click', async () => {
    const name = checkRepo()
    if (name === null) {
      repo.focus()
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
    const name = checkRepo()
    const replaying = modeReplay.checked
    const prNumber = replaying ? null : checkPr()
    const k = replaying ? 1 : wholeIn(repeat, repeatError, 'The repeat count', REPEAT_MAX)
    const n = replaying ? wholeIn(replay, replayError, 'The number of PRs', REPLAY_MAX) : 1
    const classifications = editor.collect()
    const invalid = [
      name === null ? repo : null,
      !replaying && prNumber === null ? pr : null,
      k === null ? repeat : null,
      n === null ? replay : null,
    ].find((control) => control !== null)
    if (name === null || (!replaying && prNumber === null) || k === null || n === null || classifications === null) {
      say(
        actionStatus,
        h('p', { class: 'error', role: 'alert' }, 'Nothing was sent: fix the fields marked above first.'),
      )
      if (invalid !== undefined && invalid !== null) invalid.focus()
      return
    }
    const currentMode = mode()
    const body = replaying
      ? { repo: name, replay: n, classifications }
      : { repo: name, pr: prNumber, ...(k > 1 ? { repeat: k } : {}), classifications }
    runButton.disabled = true
    say(actionStatus, h('p', { class: 'muted' }, 'Sending…'))
    const answer = await postJson('api/review-classifier/try-out', body, fitsSchema(TryOutAcceptedSchema))
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
      mode: currentMode,
      repo: name,
      pr: replaying ? null : prNumber,
      count: replaying ? n : k,
      sent: classifications,
    })
  })

  openPrButton.addEventListener('click', async () => {
    const name = checkRepo()
    const classifications = editor.collect()
    if (name === null || classifications === null) {
      say(
        actionStatus,
        h('p', { class: 'error', role: 'alert' }, 'Nothing was sent: fix the fields marked above first.'),
      )
      if (name === null) repo.focus()
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
    if (!answer.ok) {
      replace(openPrResult, problemNote(answer.problem, openPrAdvice(answer.problem.status, name)))
      return
    }
    replace(
      openPrResult,
      h(
        'div',
        { class: 'notice notice--ok', role: 'status' },
        h(
          'p',
          {},
          h('strong', {}, 'Branch pushed. '),
          `${answer.value.branch} adds the classifications to ${answer.value.path}.`,
        ),
        h(
          'p',
          {},
          'Open the pull request from the forge’s compare page: ',
          external(answer.value.compare_url, answer.value.compare_url),
        ),
      ),
    )
  })

  updateMode()
  let started = false
  return {
    element,
    show() {
      element.hidden = false
      if (!started) {
        started = true
        void suggestRepos()
      }
    },
    hide() {
      element.hidden = true
    },
  }
}
