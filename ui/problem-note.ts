/** How the pages show a call the controller refused or didn't answer. */
import type { Problem } from './api.ts'
import { h } from './dom.ts'

/** A refusal as the page shows it: what it means (`lead`), then what the controller said. */
export function problemNote(problem: Problem, lead: string): HTMLElement {
  return h(
    'div',
    { class: 'notice notice--error', role: 'alert' },
    h('p', {}, h('strong', {}, lead)),
    h('p', {}, `The controller says (${problem.status === 0 ? 'no answer' : problem.status}): `, problem.detail),
  )
}
