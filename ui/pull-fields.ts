/**
 * The try-out page's pull request panel: the repo (the repos with open PRs
 * suggested, any owner/name taken), then one PR (its open ones suggested)
 * asked once or k times, or the repo's last N PRs (replay). Each field is
 * checked as the controller would check it, its error beside it.
 */
import { fitsSchema } from '../core/wire/decode.ts'
import { REPEAT_MAX, REPLAY_MAX } from '../core/wire/limits.ts'
import { PullListSchema, PullReposSchema } from '../core/wire/page-schemas.ts'
import { parseRepoValue } from '../core/wire/repo.ts'
import { getJson } from './api.ts'
import type { AttemptMode } from './attempt.ts'
import { h, replace } from './dom.ts'
import { plural } from './format.ts'

/** What the fields ask to run against, every field checked. */
export type RunTarget = {
  repo: string
  mode: AttemptMode
  /** The PR, or null for a replay or the labelled PRs. */
  pr: number | null
  /** k for a repeat (1 for a single run), N for a replay, answers per labelled PR. */
  count: number
  /** The try-out POST's fields but the classifications. */
  body:
    | { repo: string; pr: number; repeat?: number }
    | { repo: string; replay: number }
    | { repo: string; examples: true; repeat?: number }
}

export type PullFields = {
  element: HTMLFieldSetElement
  /** The repo checked, its error shown: owner/name, or null. */
  checkRepo(): string | null
  /** The repo checked, nothing shown: owner/name, or null. */
  checkRepoQuietly(): string | null
  focusRepo(): void
  /** Every field checked, each showing its own error: the target, or the first field in error. */
  checkTarget(): { ok: true; target: RunTarget } | { ok: false; invalid: HTMLElement }
  /** Suggests the repos with open PRs (once the page is first shown). */
  suggestRepos(): void
  /** The repo and PR fields as typed. */
  typed(): { repo: string; pr: string }
  /** Fills the repo and PR fields (a reload's, or a run's "open in try-out"); an absent PR leaves it as it is. */
  fill(repo: string, pr?: string): void
  /** Called when the repo or PR field changes. */
  onChange(listener: () => void): void
}

/** A count's one-line field (whole numbers only) and its error slot, tied by `<id>-hint` and `<id>-error`. */
function countField(id: string, value: string): [HTMLInputElement, HTMLParagraphElement] {
  const input = h('input', {
    id,
    type: 'text',
    inputmode: 'numeric',
    value,
    autocomplete: 'off',
    'aria-describedby': `${id}-hint ${id}-error`,
  })
  return [input, h('p', { class: 'error', id: `${id}-error` })]
}

/** The repo field: its input, its suggestions, its hint and its error slot. */
function repoControls() {
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
  return { repo, repoList, repoHint, repoError }
}

/** The PR field: its input, its suggestions, its hint and its error slot. */
function prControls() {
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
  return { pr, prList, prHint, prError }
}

/** The rows each mode shows: one PR and its repeat count, the replay's count, the labelled PRs' repeat count. */
function modeRows(
  controls: ReturnType<typeof prControls> & {
    repeat: HTMLInputElement
    repeatError: HTMLParagraphElement
    replay: HTMLInputElement
    replayError: HTMLParagraphElement
    examplesRepeat: HTMLInputElement
    examplesRepeatError: HTMLParagraphElement
  },
) {
  const { pr, prList, prHint, prError, repeat, repeatError, replay, replayError, examplesRepeat, examplesRepeatError } =
    controls
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
  const examplesFields = h(
    'div',
    { class: 'field-row', hidden: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'try-examples-repeat' }, 'Ask each classification per labelled PR'),
      h('div', { class: 'with-unit' }, examplesRepeat, h('span', {}, 'times')),
      h(
        'p',
        { class: 'hint', id: 'try-examples-repeat-hint' },
        `1 to ${REPEAT_MAX}; the PRs and their labels come from the repo's examples file.`,
      ),
      examplesRepeatError,
    ),
  )
  return { onePrFields, replayFields, examplesFields }
}

/** Shows `message` in `slot` and marks `control` invalid, or clears both for null; true when there is none. */
function setError(control: HTMLElement, slot: HTMLElement, message: string | null): boolean {
  replace(slot, message ?? '')
  if (message === null) control.removeAttribute('aria-invalid')
  else control.setAttribute('aria-invalid', 'true')
  return message === null
}

/** The whole number in `control` from 1 to `max`, or null with the error shown. */
function wholeIn(control: HTMLInputElement, slot: HTMLElement, what: string, max: number): number | null {
  const text = control.value.trim()
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN
  const ok = Number.isInteger(value) && value >= 1 && value <= max
  setError(control, slot, ok ? null : `${what} must be a whole number from 1 to ${max}.`)
  return ok ? value : null
}

/** `onRunLabel` gets what the run button should say whenever the mode or a count changes, and once at the start. */
export function createPullFields(onRunLabel: (label: string) => void): PullFields {
  const { repo, repoList, repoHint, repoError } = repoControls()

  const modeOne = h('input', { type: 'radio', name: 'try-mode', id: 'try-mode-one', value: 'pull', checked: true })
  const modeReplay = h('input', { type: 'radio', name: 'try-mode', id: 'try-mode-replay', value: 'replay' })
  const modeExamples = h('input', { type: 'radio', name: 'try-mode', id: 'try-mode-examples', value: 'examples' })

  const { pr, prList, prHint, prError } = prControls()

  const [repeat, repeatError] = countField('try-repeat', '1')
  const [replay, replayError] = countField('try-replay', '5')
  const [examplesRepeat, examplesRepeatError] = countField('try-examples-repeat', '1')

  const { onePrFields, replayFields, examplesFields } = modeRows({
    pr,
    prList,
    prHint,
    prError,
    repeat,
    repeatError,
    replay,
    replayError,
    examplesRepeat,
    examplesRepeatError,
  })

  const element = h(
    'fieldset',
    { class: 'panel panel--pull' },
    h('legend', {}, 'Pull request'),
    h('div', { class: 'field' }, h('label', { for: 'try-repo' }, 'Repo'), repo, repoList, repoHint, repoError),
    h(
      'fieldset',
      { class: 'mode' },
      h('legend', {}, 'Run against'),
      h('div', { class: 'radio' }, modeOne, h('label', { for: 'try-mode-one' }, 'One pull request')),
      h('div', { class: 'radio' }, modeReplay, h('label', { for: 'try-mode-replay' }, "The repo's last PRs (replay)")),
      h('div', { class: 'radio' }, modeExamples, h('label', { for: 'try-mode-examples' }, "The repo's labelled PRs")),
    ),
    onePrFields,
    replayFields,
    examplesFields,
  )

  function mode(): AttemptMode {
    if (modeReplay.checked) return 'replay'
    if (modeExamples.checked) return 'examples'
    return repeat.value.trim() !== '' && repeat.value.trim() !== '1' ? 'repeat' : 'pull'
  }

  function updateMode(): void {
    const replaying = modeReplay.checked
    const scoring = modeExamples.checked
    onePrFields.hidden = replaying || scoring
    replayFields.hidden = !replaying
    examplesFields.hidden = !scoring
    const k = Number(repeat.value)
    const n = Number(replay.value)
    if (scoring) {
      onRunLabel('Score against the labelled PRs')
      return
    }
    onRunLabel(
      replaying
        ? Number.isInteger(n) && n >= 1
          ? `Replay the last ${plural(n, 'PR')}`
          : 'Replay'
        : Number.isInteger(k) && k > 1
          ? `Run ${k} times`
          : 'Run',
    )
  }
  modeOne.addEventListener('change', updateMode)
  modeReplay.addEventListener('change', updateMode)
  modeExamples.addEventListener('change', updateMode)
  repeat.addEventListener('input', updateMode)
  replay.addEventListener('input', updateMode)

  function checkRepo(): string | null {
    const parsed = parseRepoValue(repo.value.trim())
    setError(
      repo,
      repoError,
      parsed.ok ? null : repo.value.trim() === '' ? 'Enter the repo as owner/name.' : parsed.error,
    )
    return parsed.ok ? repo.value.trim() : null
  }

  function checkPr(): number | null {
    const text = pr.value.trim()
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN
    const ok = Number.isSafeInteger(value) && value >= 1
    setError(pr, prError, ok ? null : 'Enter the PR number, a whole number from 1.')
    return ok ? value : null
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

  function checkTarget(): ReturnType<PullFields['checkTarget']> {
    const name = checkRepo()
    if (modeExamples.checked) {
      const times = wholeIn(examplesRepeat, examplesRepeatError, 'The repeat count', REPEAT_MAX)
      if (name === null) return { ok: false, invalid: repo }
      if (times === null) return { ok: false, invalid: examplesRepeat }
      const body: RunTarget['body'] = { repo: name, examples: true, ...(times > 1 ? { repeat: times } : {}) }
      return { ok: true, target: { repo: name, mode: 'examples', pr: null, count: times, body } }
    }
    const replaying = modeReplay.checked
    const prNumber = replaying ? null : checkPr()
    const k = replaying ? 1 : wholeIn(repeat, repeatError, 'The repeat count', REPEAT_MAX)
    const n = replaying ? wholeIn(replay, replayError, 'The number of PRs', REPLAY_MAX) : 1
    // The first field in error, in the page's order, is the one to focus.
    if (name === null) return { ok: false, invalid: repo }
    if (replaying) {
      if (n === null) return { ok: false, invalid: replay }
      return { ok: true, target: { repo: name, mode: 'replay', pr: null, count: n, body: { repo: name, replay: n } } }
    }
    if (prNumber === null) return { ok: false, invalid: pr }
    if (k === null) return { ok: false, invalid: repeat }
    const body = { repo: name, pr: prNumber, ...(k > 1 ? { repeat: k } : {}) }
    return { ok: true, target: { repo: name, mode: mode(), pr: prNumber, count: k, body } }
  }

  updateMode()
  return {
    element,
    checkRepo,
    checkRepoQuietly: () => (parseRepoValue(repo.value.trim()).ok ? repo.value.trim() : null),
    focusRepo: () => repo.focus(),
    checkTarget,
    suggestRepos: () => void suggestRepos(),
    typed: () => ({ repo: repo.value.trim(), pr: pr.value.trim() }),
    fill(name, number) {
      repo.value = name
      if (number !== undefined) pr.value = number
      if ((modeReplay.checked || modeExamples.checked) && number !== undefined && number !== '') {
        modeOne.checked = true
        updateMode()
      }
      void suggestPulls()
    },
    onChange(listener) {
      repo.addEventListener('change', listener)
      pr.addEventListener('change', listener)
      pr.addEventListener('input', listener)
    },
  }
}
