/**
 * What a waiver's run shows on its card (docs/behaviour.md, "Waivers and
 * labels"): who waived which rule, on which head, and why. A waiver's
 * re-post asked no model, and its card says so.
 */
import type { RunRecord } from '../core/run/run-record.ts'
import { h } from './dom.ts'
import { shortSha } from './format.ts'

/** The words each trigger reads as on a card and in the filter. */
export const TRIGGER_WORDS: Record<RunRecord['trigger'], string> = {
  review: 'review request',
  'try-out': 'try-out',
  waiver: 'waiver (no model asked)',
}

/** Who the card names as having started the run. */
export function starterTerm(record: RunRecord): string {
  if (record.trigger === 'review') return 'Requested by'
  return record.trigger === 'waiver' ? 'Waived by' : 'Run by'
}

/** The waivers the run re-posted, one line each, or nothing for another run. */
export function waivedList(record: RunRecord): HTMLElement | null {
  const waived = record.waived ?? []
  if (waived.length === 0) return null
  return h(
    'ul',
    { class: 'card-waived', 'aria-label': 'Waived on this head' },
    ...waived.map((waiver) =>
      h(
        'li',
        {},
        h('strong', {}, waiver.rule),
        ` waived by @${waiver.by} on `,
        h('code', {}, shortSha(waiver.head_sha)),
        ': ',
        h('q', {}, waiver.reason),
      ),
    ),
  )
}
