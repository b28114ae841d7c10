/**
 * "Open a PR", in two steps: first the file it will write, as YAML, and
 * whether the draft changed since it was last run; then, on "Push the
 * branch", the push itself. The preview merges by name as the controller
 * does (core/repo-files/rules-merge.ts: a name already in the file replaces that entry,
 * a new one goes at the end); the controller edits the file as text, so the
 * entries it leaves alone keep their exact bytes and comments, which a
 * preview built from the parsed rules can't show. The page's labels go with
 * it into the examples file (open-pr-labels.ts), and with rules left as they
 * are the commit writes that file alone.
 */
import { fitsSchema } from '../core/wire/decode.ts'
import { RepoRulesSchema } from '../core/wire/page-schemas.ts'
import type { Classification } from '../core/wire/types.ts'
import { getJson } from './api.ts'
import type { Attempt } from './attempt.ts'
import { h } from './dom.ts'
import type { LabelBook } from './label-book.ts'
import type { PrLabels } from './labels.ts'
import { labelsPreview } from './open-pr-labels.ts'
import { mergeByName, NEW_RULES_PATH, ruleKey, rulesYaml } from './rules-yaml.ts'

function same(a: readonly Classification[], b: readonly Classification[]): boolean {
  const key = (list: readonly Classification[]) => list.map(ruleKey).join('\n')
  return key(a) === key(b)
}

/** Whether the draft is what the newest attempt on `repo` ran, in words; null when it is. */
export function draftSinceRun(
  draft: readonly Classification[],
  attempts: readonly Attempt[],
  repo: string,
): string | null {
  const last = attempts.filter((attempt) => attempt.repo === repo).at(-1)
  if (last === undefined) return 'This draft has not been run yet: nothing shows how it answers.'
  if (same(last.sent, draft)) return null
  return `The draft changed since its last run (attempt ${last.number}): run it again to see what the change does.`
}

/**
 * The preview of the files "open a PR" writes, with the push button the caller wires (disabled
 * when the labels can't be sent), and the labels to send with it.
 */
export async function openPrPreview(
  repo: string,
  draft: readonly Classification[],
  attempts: readonly Attempt[],
  book: LabelBook,
  push: HTMLButtonElement,
  cancel: HTMLButtonElement,
): Promise<{ element: HTMLElement; labels: PrLabels[]; changes: boolean }> {
  const answer = await getJson('api/review-classifier/rules', fitsSchema(RepoRulesSchema), { repo })
  const existing = answer.ok ? answer.value.classifications : []
  // Without a file the controller writes the YAML one; core/repo-files/rules-file.ts names it, but bundling that brings the YAML parser.
  const path = answer.ok ? answer.value.path : NEW_RULES_PATH
  const where = answer.ok
    ? `${path} on ${answer.value.branch}`
    : answer.problem.status === 404
      ? `a new ${path}`
      : `${path} (its current text can't be read: ${answer.problem.detail})`
  const { merged, added, changed } = mergeByName(existing, draft)
  const stale = draftSinceRun(draft, attempts, repo)
  const summary = [
    added.length > 0 ? `adds ${added.join(', ')}` : null,
    changed.length > 0 ? `changes ${changed.join(', ')}` : null,
  ].filter((part) => part !== null)
  const names = [...new Set([...draft, ...existing].map((entry) => entry.name))]
  const labels = await labelsPreview(repo, names, book)
  push.disabled = labels.blocked
  // Rules left as they are with labels to write: the controller commits the examples file alone.
  const labelsAlone = summary.length === 0 && labels.labels.length > 0
  return {
    labels: labels.labels,
    changes: labels.changes,
    element: h(
      'div',
      { class: 'notice open-pr-preview', role: 'region', 'aria-label': 'The files the PR will write' },
      labelsAlone
        ? h(
            'p',
            { id: 'open-pr-rules-unchanged' },
            h('strong', {}, `The rules stay as they are in ${where}: `),
            'the commit writes the labels alone.',
          )
        : h(
            'p',
            {},
            h('strong', {}, `The branch will write ${where}: `),
            summary.length > 0 ? `${summary.join('; ')}.` : 'no change.',
          ),
      stale === null ? null : h('p', { class: 'warn-text', id: 'open-pr-stale' }, stale),
      labelsAlone
        ? null
        : h(
            'pre',
            { class: 'yaml-preview', tabindex: '0', 'aria-label': `${path} after the change` },
            h('code', {}, rulesYaml(merged)),
          ),
      labelsAlone
        ? null
        : h(
            'p',
            { class: 'hint' },
            'Entries left as they are keep their exact text and comments in the file; only the entries this adds or changes are written anew.',
          ),
      labels.element,
      h('div', { class: 'actions' }, push, cancel),
    ),
  }
}
