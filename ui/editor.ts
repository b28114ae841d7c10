/**
 * The classifications editor: add, edit and remove entries (name,
 * description, threshold, polarity, and paths and mode: scope-fields.ts), checked in the page with the rules
 * file's own checks (core/repo-files/rules-check.ts, bundled as it is), each message
 * next to the field it is about, before anything is sent.
 */

import { type RulesProblem, validateClassifications } from '../core/repo-files/rules-check.ts'
import { MAX_CLASSIFICATIONS } from '../core/wire/limits.ts'
import type { Classification, Polarity } from '../core/wire/types.ts'
import type { DraftEntry } from './bench-store.ts'
import { h, replace } from './dom.ts'
import { plural } from './format.ts'
import { SCOPE_HINTS, scopeControls, scopeValues } from './scope-fields.ts'

type FieldKey = 'name' | 'description' | 'threshold' | 'polarity' | 'paths' | 'mode'
const FIELD_KEYS = ['name', 'description', 'threshold', 'polarity', 'paths', 'mode'] as const

type Entry = {
  key: number
  element: HTMLLIElement
  legend: HTMLLegendElement
  remove: HTMLButtonElement
  inputs: {
    name: HTMLInputElement
    description: HTMLTextAreaElement
    threshold: HTMLInputElement
    polarity: HTMLSelectElement
    paths: HTMLTextAreaElement
    mode: HTMLSelectElement
  }
  errors: Record<FieldKey | 'entry', HTMLElement>
  touched: Set<FieldKey>
}

export type Editor = {
  element: HTMLElement
  /** Replaces every entry. */
  load(classifications: readonly Classification[]): void
  /** The classifications as checked, or null when a check fails (the messages are then shown, the first invalid field focused). */
  collect(): Classification[] | null
  /** The classifications as typed, checked or not (for comparing attempts). */
  count(): number
  /** The entries as typed, checked or not: what a reload keeps. */
  draft(): DraftEntry[]
  /** Puts entries as typed back (none: one empty entry). */
  restore(draft: readonly DraftEntry[]): void
  /** Called after every edit, add and remove. */
  onChange(listener: () => void): void
  /** Moves the focus to the first entry's name. */
  focusFirst(): void
}

const POLARITIES: readonly Polarity[] = ['positive', 'negative']
/** One hint per key, shared by every entry's control of that key. */
const HINT_IDS: Record<FieldKey, string> = {
  name: 'rules-hint-name',
  description: 'rules-hint-description',
  threshold: 'rules-hint-threshold',
  polarity: 'rules-hint-polarity',
  paths: 'rules-hint-paths',
  mode: 'rules-hint-mode',
}
const DEFAULT_ENTRY: Classification = { name: '', description: '', threshold: 80, polarity: 'positive' }

function isPolarity(value: string): value is Polarity {
  return value === 'positive' || value === 'negative'
}

/** A threshold as typed: a number when it reads as one, so the check says "got 101 (a number)"; the text otherwise. */
function thresholdValue(text: string): unknown {
  const trimmed = text.trim()
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed
}

/** One labelled control of entry `entryKey`, tied to its key's hint and its own error slot. */
function field(
  entryKey: number,
  key: FieldKey,
  label: string,
  control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement,
) {
  const id = `rule-${entryKey}-${key}`
  const errorId = `${id}-error`
  control.id = id
  control.setAttribute('aria-describedby', `${HINT_IDS[key]} ${errorId}`)
  const error = h('p', { class: 'error', id: errorId })
  return {
    error,
    element: h('div', { class: `field field--${key}` }, h('label', { for: id }, label), control, error),
  }
}

/** The hints every entry's fields point at, one per key. */
function editorHints(): HTMLDivElement {
  return h(
    'div',
    { class: 'hint editor-hints' },
    h('p', { id: HINT_IDS.name }, 'Name: short, unique, shown in the result table.'),
    h('p', { id: HINT_IDS.description }, 'Description: the yes/no question the model answers about the PR.'),
    h('p', { id: HINT_IDS.threshold }, 'Threshold: the certainty, 0 to 100, a verdict needs to count.'),
    h(
      'p',
      { id: HINT_IDS.polarity },
      'Polarity: positive when a match is wanted, negative when a match is a violation.',
    ),
    h('p', { id: HINT_IDS.paths }, SCOPE_HINTS.paths),
    h('p', { id: HINT_IDS.mode }, SCOPE_HINTS.mode),
  )
}

/** Entry `key`'s controls and fields, filled with `value`, before any listener. */
function buildEntry(key: number, value: Classification | DraftEntry): Entry {
  const name = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', value: value.name })
  const description = h('textarea', { rows: 2 })
  description.value = value.description
  const threshold = h('input', {
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'off',
    value: String(value.threshold),
  })
  const polarity = h('select', {}, ...POLARITIES.map((p) => h('option', { value: p }, p)))
  polarity.value = isPolarity(value.polarity) ? value.polarity : 'positive'
  const nameField = field(key, 'name', 'Name', name)
  const descriptionField = field(key, 'description', 'Description', description)
  const thresholdField = field(key, 'threshold', 'Threshold', threshold)
  const polarityField = field(key, 'polarity', 'Polarity', polarity)
  const { paths, mode } = scopeControls(value)
  const pathsField = field(key, 'paths', 'Paths (one per line)', paths)
  const modeField = field(key, 'mode', 'Mode', mode)
  const legend = h('legend', {})
  const remove = h('button', { type: 'button', class: 'link-button remove' }, 'Remove')
  const entryError = h('p', { class: 'error entry-error' })
  const element = h(
    'li',
    { class: 'entry' },
    h(
      'fieldset',
      {},
      legend,
      h('div', { class: 'entry-grid' }, nameField.element, thresholdField.element, polarityField.element),
      descriptionField.element,
      h('div', { class: 'entry-scope' }, pathsField.element, modeField.element),
      // After the description, so the tab order runs through the whole entry before leaving it.
      h('div', { class: 'entry-remove' }, remove),
      entryError,
    ),
  )
  const entry: Entry = {
    key,
    element,
    legend,
    remove,
    inputs: { name, description, threshold, polarity, paths, mode },
    errors: {
      name: nameField.error,
      description: descriptionField.error,
      threshold: thresholdField.error,
      polarity: polarityField.error,
      paths: pathsField.error,
      mode: modeField.error,
      entry: entryError,
    },
    touched: new Set(),
  }
  return entry
}

export function createEditor(): Editor {
  const list = h('ol', { class: 'entries' })
  const listError = h('p', { class: 'error', id: 'rules-list-error', role: 'alert' })
  const addButton = h('button', { type: 'button', class: 'secondary', id: 'add-rule' }, 'Add a classification')
  const counter = h('p', { class: 'hint', id: 'rules-count' })
  const hints = editorHints()
  const element = h(
    'div',
    { class: 'editor' },
    hints,
    list,
    h('div', { class: 'editor-foot' }, addButton, counter),
    listError,
  )
  let entries: Entry[] = []
  let nextKey = 0
  let showAll = false
  const listeners: Array<() => void> = []
  const changed = () => {
    for (const listener of listeners) listener()
  }

  addButton.addEventListener('click', () => {
    const entry = addEntry(DEFAULT_ENTRY)
    renumber()
    check(false)
    changed()
    entry.inputs.name.focus()
  })

  function addEntry(value: Classification | DraftEntry): Entry {
    nextKey += 1
    const key = nextKey
    const entry = buildEntry(key, value)
    const { element, remove } = entry
    for (const [fieldKey, control] of Object.entries(entry.inputs) as Array<[FieldKey, HTMLElement]>) {
      const touch = () => {
        entry.touched.add(fieldKey)
        check(false)
        changed()
      }
      control.addEventListener('input', touch)
      control.addEventListener('change', touch)
    }
    remove.addEventListener('click', () => {
      const index = entries.indexOf(entry)
      entries = entries.filter((other) => other !== entry)
      element.remove()
      renumber()
      check(false)
      changed()
      const next = entries[index] ?? entries[index - 1]
      ;(next?.inputs.name ?? addButton).focus()
    })
    entries.push(entry)
    list.append(element)
    return entry
  }

  function renumber(): void {
    entries.forEach((entry, index) => {
      entry.legend.textContent = `Classification ${index + 1}`
      entry.remove.setAttribute('aria-label', `Remove classification ${index + 1}`)
    })
    counter.textContent = `${plural(entries.length, 'classification')} (1 to ${MAX_CLASSIFICATIONS}).`
  }

  function values(): unknown[] {
    return entries.map((entry) => ({
      name: entry.inputs.name.value,
      description: entry.inputs.description.value,
      threshold: thresholdValue(entry.inputs.threshold.value),
      polarity: entry.inputs.polarity.value,
      ...scopeValues(entry.inputs),
    }))
  }

  /** Runs the checks and shows their messages (all of them with `all`, else only for fields already edited). */
  function check(all: boolean): { classifications: Classification[] | null; firstInvalid: HTMLElement | null } {
    if (all) showAll = true
    const result = validateClassifications(values(), 'the page')
    const problems: RulesProblem[] = result.ok ? [] : result.error
    let firstInvalid: HTMLElement | null = null
    entries.forEach((entry, index) => {
      const mine = problems.filter((problem) => problem.entry === index)
      for (const key of FIELD_KEYS) {
        const messages = mine.filter((problem) => problem.key === key).map((problem) => problem.detail)
        const shown = showAll || entry.touched.has(key) ? messages : []
        const control = entry.inputs[key]
        replace(entry.errors[key], shown.join(' '))
        if (shown.length > 0) {
          control.setAttribute('aria-invalid', 'true')
          firstInvalid ??= control
        } else {
          control.removeAttribute('aria-invalid')
        }
      }
      const general = mine.filter((problem) => problem.key === undefined).map((problem) => problem.detail)
      replace(entry.errors.entry, showAll ? general.join(' ') : '')
      if (showAll && general.length > 0) firstInvalid ??= entry.inputs.name
    })
    const listProblems = problems.filter((problem) => problem.entry === undefined).map((problem) => problem.detail)
    replace(
      listError,
      listProblems.length > 0 && (showAll || entries.length > MAX_CLASSIFICATIONS)
        ? `The list ${listProblems.join('; ')}.`
        : '',
    )
    if (showAll && listProblems.length > 0) firstInvalid ??= addButton
    return { classifications: result.ok ? result.value : null, firstInvalid }
  }

  addEntry(DEFAULT_ENTRY)
  renumber()

  return {
    element,
    load(classifications) {
      for (const entry of entries) entry.element.remove()
      entries = []
      showAll = false
      for (const classification of classifications) addEntry(classification)
      if (entries.length === 0) addEntry(DEFAULT_ENTRY)
      renumber()
      check(false)
    },
    collect() {
      const { classifications, firstInvalid } = check(true)
      if (classifications === null) firstInvalid?.focus()
      return classifications
    },
    count() {
      return entries.length
    },
    draft() {
      return entries.map((entry) => ({
        name: entry.inputs.name.value,
        description: entry.inputs.description.value,
        threshold: entry.inputs.threshold.value,
        polarity: entry.inputs.polarity.value,
        paths: entry.inputs.paths.value,
        mode: entry.inputs.mode.value,
      }))
    },
    restore(draft) {
      for (const entry of entries) entry.element.remove()
      entries = []
      showAll = false
      for (const typed of draft) addEntry(typed)
      if (entries.length === 0) addEntry(DEFAULT_ENTRY)
      renumber()
      check(false)
    },
    onChange(listener) {
      listeners.push(listener)
    },
    focusFirst() {
      entries[0]?.inputs.name.focus()
    },
  }
}
