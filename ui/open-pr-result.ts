/**
 * What the open-a-PR button's answer means to the person who pressed it:
 * the branch pushed and the forge's compare page to open the PR from, or,
 * for a refusal, what to do about it (the route's own detail follows).
 */
import type { OpenPrAnswer } from '../core/wire/types.ts'
import { external, h } from './dom.ts'
import { NEW_EXAMPLES_PATH, type PrLabels } from './labels.ts'

/** The labels a push sent, and whether they change the examples file (the preview's word). */
export type SentLabels = { labels: readonly PrLabels[]; changes: boolean }

/** What the branch's one commit writes, in words. */
function written(answer: OpenPrAnswer, sent: SentLabels): string {
  const prs = sent.labels.map(({ pr }) => `#${pr}`).join(', ')
  const examplesAlone = answer.path === NEW_EXAMPLES_PATH || answer.path === NEW_EXAMPLES_PATH.replace(/yml$/, 'json')
  if (examplesAlone)
    return `${answer.branch} writes the labels of ${prs} into ${answer.path}; the rules stay as they are.`
  const rules = `${answer.branch} adds the classifications to ${answer.path}`
  if (sent.labels.length === 0) return `${rules}.`
  if (!sent.changes) return `${rules}; the examples file already held the labels of ${prs}, so it stays as it is.`
  return `${rules}, and writes the labels of ${prs} into the examples file in the same commit.`
}

/** What a refused open-pr means for the person who asked, by status; the route's detail follows. */
export function openPrAdvice(status: number, repo: string): string {
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

/** The notice for a pushed branch, with the compare page to open the PR from. */
export function openPrPushed(answer: OpenPrAnswer, sent: SentLabels): HTMLElement {
  return h(
    'div',
    { class: 'notice notice--ok', role: 'status' },
    h('p', {}, h('strong', {}, 'Branch pushed. '), written(answer, sent)),
    h(
      'p',
      {},
      'Open the pull request from the forge’s compare page: ',
      external(answer.compare_url, answer.compare_url),
    ),
  )
}
