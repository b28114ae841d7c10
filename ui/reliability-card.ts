/**
 * One rule's reliability card (docs/behaviour.md, "Labelled examples and
 * reliability"): how its answers on the labelled PRs compare with their
 * labels, every count in words, and a what-if threshold slider that judges
 * the same answers again in the page with core's own scoring: no request,
 * no model call.
 */
import { labelledAnswers, scoreClassification } from '../core/try-out/reliability.ts'
import type { Classification, ClassificationScore, ExamplesLine, TryOutExamples, Verdict } from '../core/wire/types.ts'
import { type Child, external, h, replace } from './dom.ts'
import { plural, verdictLabel } from './format.ts'

/** The what-if thresholds moved, by attempt and rule: a re-render of the attempt keeps them. */
const whatIf = new Map<string, number>()

/** The rule's labelled PRs with every answer the view holds, as core scores them. */
function answersOf(name: string, examples: TryOutExamples) {
  const labelled = examples.pulls.flatMap((line) => {
    const expected: Verdict | undefined = Object.hasOwn(line.expect, name) ? line.expect[name] : undefined
    return expected === undefined ? [] : [{ pr: line.pr, expected }]
  })
  return labelledAnswers(name, labelled, examples.pulls, examples.repeat)
}

function falsePassWords(count: number): string {
  return count === 0 ? 'No false pass' : `${plural(count, 'false pass', 'false passes')}`
}

/** "10 agree, 1 disagrees, 0 false passes": what the slider says it is set to. */
function summary(score: ClassificationScore): string {
  return `${score.agree} agree, ${score.disagree} ${score.disagree === 1 ? 'disagrees' : 'disagree'}, ${score.abstain} abstain, ${plural(score.false_pass, 'false pass', 'false passes')}`
}

function marginWords(score: ClassificationScore): string {
  if (score.margin === null) return 'none: no answer counted'
  return `${score.margin} (the closest counted answer is ${score.margin} over the threshold)`
}

function disagreements(score: ClassificationScore, lines: readonly ExamplesLine[]): Child {
  if (score.disagreements.length === 0) return h('p', { class: 'card-agreed' }, 'Disagreed on no labelled PR.')
  return h(
    'div',
    { class: 'card-disagreed' },
    h('p', {}, 'Disagreed on:'),
    h(
      'ul',
      { class: 'card-disagreed-list' },
      ...score.disagreements.map((entry) => {
        const line = lines.find((candidate) => candidate.pr === entry.pr)
        const kind = entry.kind === null ? '' : entry.kind === 'false-pass' ? ', a false pass' : ', a false block'
        return h(
          'li',
          { class: entry.kind === 'false-pass' ? 'disagreed--false-pass' : undefined },
          line === undefined ? `#${entry.pr}` : external(line.url, `#${entry.pr}`),
          line === undefined || line.title === '' ? null : ` ${line.title}`,
          `: labelled ${verdictLabel(entry.expected)}, answered ${verdictLabel(entry.verdict)} ${entry.certainty}${kind}`,
        )
      }),
    ),
  )
}

/** The card's numbers at the threshold it is judged at. */
function numbers(score: ClassificationScore, own: number, lines: readonly ExamplesLine[]): HTMLElement[] {
  const item = (term: string, value: string, key: string) =>
    h('div', { class: `card-count card-count--${key}` }, h('dt', {}, term), h('dd', {}, value))
  const whatIfNote = score.threshold === own ? '' : ` (what-if; its own is ${own})`
  return [
    h(
      'p',
      { class: `card-verdict ${score.false_pass === 0 ? 'card-verdict--safe' : 'card-verdict--unsafe'}` },
      h('strong', {}, `${falsePassWords(score.false_pass)}`),
      ` at threshold ${score.threshold}${whatIfNote}: ${score.agree} of ${plural(score.answers, 'answer')} on ${plural(score.labelled, 'labelled PR')} agree with the label.`,
    ),
    h(
      'dl',
      { class: 'card-counts' },
      item('Agree', String(score.agree), 'agree'),
      item('Disagree', String(score.disagree), 'disagree'),
      item('Abstain', String(score.abstain), 'abstain'),
      item(
        'False passes',
        String(score.false_pass),
        score.false_pass > 0 ? 'false-pass card-count--false-passes' : 'false-pass',
      ),
      item('False blocks', String(score.false_block), 'false-block'),
      item('Flips', `${score.flips} of ${plural(score.labelled, 'PR')} changed outcome between repeats`, 'flips'),
      item('Margin', marginWords(score), 'margin'),
      item(
        'Suggested threshold',
        score.suggested_threshold === null
          ? 'none: every threshold leaves a false pass, or nothing was answered'
          : String(score.suggested_threshold),
        'suggested',
      ),
    ),
    h('div', {}, disagreements(score, lines)),
  ] satisfies Child[]
}

/** The card of one rule: the server's score at its own threshold, judged again in the page at a what-if one. */
export function reliabilityCard(
  attemptId: string,
  rule: Pick<Classification, 'name' | 'polarity' | 'threshold'>,
  scored: ClassificationScore,
  examples: TryOutExamples,
): HTMLElement {
  const key = `${attemptId}\u0000${rule.name}`
  const own = scored.threshold
  const answers = answersOf(rule.name, examples)
  const at = (threshold: number) =>
    threshold === own ? scored : scoreClassification({ ...rule, threshold: own }, answers, threshold)
  const start = whatIf.get(key) ?? own
  const sliderId = `what-if-${encodeURIComponent(attemptId)}-${encodeURIComponent(rule.name)}`
  const body = h('div', { class: 'card-body' }, ...numbers(at(start), own, examples.pulls))
  const shown = h('output', { for: sliderId, class: 'what-if-value' }, String(start))
  const slider = h('input', {
    type: 'range',
    id: sliderId,
    min: '0',
    max: '100',
    step: '1',
    value: String(start),
    'aria-valuetext': `${start}: ${summary(at(start))}`,
    'aria-describedby': `${sliderId}-hint`,
  })
  slider.addEventListener('input', () => {
    const threshold = Number(slider.value)
    whatIf.set(key, threshold)
    const score = at(threshold)
    shown.textContent = String(threshold)
    slider.setAttribute('aria-valuetext', `${threshold}: ${summary(score)}`)
    replace(body, ...numbers(score, own, examples.pulls))
  })
  return h(
    'section',
    {
      class: 'reliability-card',
      'data-rule': rule.name,
      'data-key': rule.name,
      'aria-label': `${rule.name}: reliability`,
    },
    h('h4', {}, rule.name, h('span', { class: 'rule-terms' }, `${rule.polarity}, threshold ${own}`)),
    body,
    h(
      'div',
      { class: 'what-if' },
      h('label', { for: sliderId }, 'What-if threshold'),
      slider,
      shown,
      h(
        'p',
        { class: 'hint', id: `${sliderId}-hint` },
        'Judges the answers above again at this threshold, in the page: no model is asked.',
      ),
    ),
  )
}
