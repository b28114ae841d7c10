/**
 * The try-out page (docs/behaviour.md, "Try-out"): pick a repo and a PR
 * (suggested, still free text), load or write classifications, run them on
 * the PR (once, repeatedly, or on the repo's last PRs), label a replay's
 * cells, and when they answer the way you want, open a PR that adds them to
 * the repo's rules and the labels to its examples file. Every
 * check the controller would make on the body runs here first, with core's
 * own code, and a refused field sends nothing.
 */
import { fitsSchema } from '../core/wire/decode.ts'
import { OpenPrAnswerSchema, RepoRulesSchema, TryOutAcceptedSchema } from '../core/wire/page-schemas.ts'
import type { Classification, UiConfig } from '../core/wire/types.ts'
import { getJson, postJson } from './api.ts'
import type { Attempt } from './attempt.ts'
import { type Attempts, createAttempts } from './attempts.ts'
import { draftOf } from './attempts-matrix.ts'
import { lastRepo, loadBench, saveBench, storedAttempt } from './bench-store.ts'
import { h, replace } from './dom.ts'
import { createEditor, type Editor } from './editor.ts'
import { plural, shortSha } from './format.ts'
import { createLabelBook, type LabelBook } from './label-book.ts'
import { openPrPreview } from './open-pr-preview.ts'
import { openPrAdvice, openPrPushed, type SentLabels } from './open-pr-result.ts'
import { problemNote } from './problem-note.ts'
import { createPullFields, type PullFields } from './pull-fields.ts'

/** How the page names its run shortcut: ⌘ on a Mac, Ctrl elsewhere (both work everywhere). */
const RUN_KEYS = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘+Enter' : 'Ctrl+Enter'

export type TryOutPage = { element: HTMLElement; show(): void; hide(): void }

/** The page's buttons and status slots. */
function tryOutControls() {
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

  const loadRules = h('button', { type: 'button', class: 'secondary', id: 'load-rules' }, "Load the repo's rules")
  const rulesStatus = h('div', { class: 'rules-status', id: 'rules-status', 'aria-live': 'polite' })

  const openPrButton = h(
    'button',
    { type: 'button', class: 'secondary', id: 'try-open-pr' },
    'Open a PR with these classifications',
  )
  const actionStatus = h('div', { class: 'action-status', id: 'try-action-status', 'aria-live': 'polite' })
  const openPrResult = h('div', { class: 'open-pr-result', id: 'open-pr-result', 'aria-live': 'polite' })
  return { runButton, shortcut, loadRules, rulesStatus, openPrButton, actionStatus, openPrResult }
}

type Controls = ReturnType<typeof tryOutControls>

/** The form: the pull request and classifications panels, the run bar and the open-PR result. */
function tryOutForm(controls: Controls, pull: PullFields, editor: Editor): HTMLFormElement {
  const { runButton, shortcut, loadRules, rulesStatus, openPrButton, actionStatus, openPrResult } = controls
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
  return form
}

/** The page: its head, the form and, beside it, the attempts. */
function tryOutPageElement(form: HTMLFormElement, attempts: HTMLElement): HTMLElement {
  return h(
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
    h('div', { class: 'try-layout' }, form, attempts),
  )
}

/** What the page says in `slot`, in place of what it said. */
function say(slot: HTMLElement, ...children: Array<Node | string | null>): void {
  replace(slot, ...children)
}

/** Run: every field checked, the try-out posted, and its attempt added to fill in. */
function wireRun(
  form: HTMLFormElement,
  { runButton, actionStatus, openPrResult }: Pick<Controls, 'runButton' | 'actionStatus' | 'openPrResult'>,
  pull: PullFields,
  editor: Editor,
  attempts: Attempts,
): void {
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
    say(actionStatus, h('p', { class: 'muted' }, 'Started: the attempt fills in as each classification finishes.'))
    attempts.add({
      id: answer.value.id,
      mode: target.mode,
      repo: target.repo,
      pr: target.pr,
      count: target.count,
      sent: classifications,
    })
  })
}

/** Open a PR: the file it will write shown first, then the branch pushed on its own button. */
function wireOpenPr(
  { openPrButton, actionStatus, openPrResult }: Pick<Controls, 'openPrButton' | 'actionStatus' | 'openPrResult'>,
  pull: PullFields,
  editor: Editor,
  attempts: Attempts,
  labels: LabelBook,
): void {
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
    // First the file it will write, then the push on its own button: nothing is pushed unseen.
    openPrButton.disabled = true
    const push = h('button', { type: 'button', class: 'primary', id: 'try-open-pr-push' }, 'Push the branch')
    const cancel = h('button', { type: 'button', class: 'secondary', id: 'try-open-pr-cancel' }, 'Not now')
    cancel.addEventListener('click', () => {
      replace(openPrResult)
      openPrButton.focus()
    })
    const preview = await openPrPreview(name, classifications, attempts.list(), labels, push, cancel)
    push.addEventListener('click', () => void pushBranch(name, classifications, preview))
    openPrButton.disabled = false
    replace(openPrResult, preview.element)
    if (push.disabled) cancel.focus()
    else push.focus()
  })

  /** Pushes the branch with the labels the preview showed (none: no `labels` in the body). */
  async function pushBranch(name: string, classifications: Classification[], sent: SentLabels): Promise<void> {
    say(actionStatus, h('p', { class: 'muted' }, `Pushing a branch to ${name}…`))
    replace(openPrResult)
    const answer = await postJson(
      'api/review-classifier/open-pr',
      { repo: name, classifications, ...(sent.labels.length > 0 ? { labels: sent.labels } : {}) },
      fitsSchema(OpenPrAnswerSchema),
    )
    replace(actionStatus)
    replace(
      openPrResult,
      answer.ok
        ? openPrPushed(answer.value, sent)
        : problemNote(answer.problem, openPrAdvice(answer.problem.status, name)),
    )
    openPrButton.focus()
  }
}

export function createTryOutPage(config: UiConfig): TryOutPage {
  const controls = tryOutControls()
  const { runButton, loadRules, rulesStatus } = controls
  const pull = createPullFields((label) => {
    runButton.textContent = label
  })

  const editor = createEditor()
  const labels = createLabelBook()
  const attempts = createAttempts(config, restoreAttempt, labels)

  /** The matrix's "restore this attempt": its rules back in the editor, in place of the draft. */
  function restoreAttempt(attempt: Attempt): void {
    editor.restore(draftOf(attempt.sent))
    save()
    say(
      rulesStatus,
      h('p', { class: 'ok' }, `The classifications of attempt ${attempt.number} are back in the editor.`),
    )
    editor.focusFirst()
  }

  const form = tryOutForm(controls, pull, editor)
  const element = tryOutPageElement(form, attempts.element)
  element.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || event.isComposing) return
    event.preventDefault()
    if (!runButton.disabled) form.requestSubmit(runButton)
  })

  // What the draft was last loaded from (or restored as): a draft that differs is the author's work.
  let baseline = editor.draft()
  const draftChanged = () => JSON.stringify(editor.draft()) !== JSON.stringify(baseline)

  function save(): void {
    const { repo, pr } = pull.typed()
    if (pull.checkRepoQuietly() === null) return
    saveBench(repo, {
      pr,
      draft: editor.draft(),
      baseline,
      attempts: attempts.list().map(storedAttempt),
      labels: [...labels.list()],
    })
  }
  editor.onChange(save)
  attempts.onChange(save)
  labels.onChange(save)
  pull.onChange(save)

  /** Puts back what a reload (or another visit) left for the last repo worked on. */
  function restoreKept(): void {
    const repo = lastRepo()
    const kept = repo === null ? null : loadBench(repo)
    if (repo === null || kept === null) return
    pull.fill(repo, kept.pr)
    editor.restore(kept.draft)
    baseline = kept.baseline
    labels.restore(kept.labels ?? [])
    attempts.restore(kept.attempts.map((attempt) => ({ ...attempt, trouble: null })))
    say(rulesStatus, h('p', { class: 'muted' }, `Your draft and attempts on ${repo} are back as you left them.`))
  }

  loadRules.addEventListener('click', () => {
    const name = pull.checkRepo()
    if (name === null) {
      pull.focusRepo()
      return
    }
    askThenLoad(name)
  })

  /** Loads the repo's rules (only the names in `only`, when given), asking first over a changed draft. */
  function askThenLoad(name: string, only?: readonly string[]): void {
    if (!draftChanged()) {
      void loadFrom(name, only)
      return
    }
    // Loading replaces every entry: a changed draft is only replaced when its author says so.
    const replaceIt = h('button', { type: 'button', class: 'primary', id: 'load-rules-replace' }, 'Replace my draft')
    const keep = h('button', { type: 'button', class: 'secondary', id: 'load-rules-keep' }, 'Keep my draft')
    replaceIt.addEventListener('click', () => void loadFrom(name, only))
    keep.addEventListener('click', () => {
      say(rulesStatus, h('p', { class: 'muted' }, 'Your draft is kept as it is.'))
      loadRules.focus()
    })
    say(
      rulesStatus,
      h(
        'div',
        { class: 'notice notice--warn', role: 'alertdialog', 'aria-labelledby': 'load-rules-ask' },
        h('p', { id: 'load-rules-ask' }, `Your draft has changes. Replace it with the rules of ${name}?`),
        h('div', { class: 'actions' }, replaceIt, keep),
      ),
    )
    keep.focus()
  }

  /** `#try-out?repo=…&pr=…&rules=a,b`, a run's "open in try-out": its repo and PR, and its rules from the repo. */
  function prefillFromHash(): void {
    if (!location.hash.startsWith('#try-out?')) return
    const query = new URLSearchParams(location.hash.slice('#try-out?'.length))
    const repo = query.get('repo')
    if (repo === null) return
    pull.fill(repo, query.get('pr') ?? undefined)
    const rules = query.get('rules')
    askThenLoad(repo, rules === null ? undefined : rules.split(',').filter((name) => name !== ''))
  }

  async function loadFrom(name: string, only?: readonly string[]): Promise<void> {
    loadRules.disabled = true
    say(rulesStatus, h('p', { class: 'muted' }, `Loading the rules of ${name}…`))
    const answer = await getJson('api/review-classifier/rules', fitsSchema(RepoRulesSchema), { repo: name })
    loadRules.disabled = false
    if (answer.ok) {
      const picked = answer.value.classifications.filter((entry) => only === undefined || only.includes(entry.name))
      editor.load(picked.length > 0 ? picked : answer.value.classifications)
      baseline = editor.draft()
      save()
      say(
        rulesStatus,
        h(
          'p',
          { class: 'ok' },
          `Loaded ${plural(picked.length > 0 ? picked.length : answer.value.classifications.length, 'classification')} from ${answer.value.path} on ${answer.value.branch} at ${shortSha(answer.value.commit)}.`,
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
  }

  wireRun(form, controls, pull, editor, attempts)

  wireOpenPr(controls, pull, editor, attempts, labels)

  let started = false
  return {
    element,
    show() {
      element.hidden = false
      if (!started) {
        started = true
        restoreKept()
        pull.suggestRepos()
      }
      if (location.hash.startsWith('#try-out?')) {
        prefillFromHash()
        // The link is followed once: a reload keeps the draft instead of loading it again.
        history.replaceState(null, '', '#try-out')
      }
    },
    hide() {
      element.hidden = true
    },
  }
}
