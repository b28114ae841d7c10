/**
 * One question of a run: its prompt asked on a session the run holds, the
 * answer parsed strictly, and the row told as soon as it ends. The ACP
 * runtime's spend is counted for each answer it reports usage for
 * (acp-usage.ts).
 */
import { type ClassificationResult, rowFromAnswer } from '../../core/aggregate.ts'
import { parseAnswer } from '../../core/answer.ts'
import { buildPromptFromContext } from '../../core/prompt.ts'
import type { Classification } from '../../core/types.ts'
import type { Metrics } from '../../ports/metrics.ts'
import type { AskOptions, ClassifyResult } from '../../ports/model-runtime.ts'
import { recordAcpUsage } from './acp-usage.ts'
import { endSession, type Held, type RunInHand } from './run-in-hand.ts'

/** Asks `classification` on `held` (null: no session came, the classifier is shutting down) and tells its row. */
export type QuestionAsker = (
  run: RunInHand,
  held: Held | null,
  classification: Classification,
  context: string,
  options?: AskOptions,
) => Promise<ClassificationResult>

const SHUTTING_DOWN: ClassificationResult['error'] = {
  kind: 'runtime',
  detail: 'cancelled: the classifier is shutting down',
}

export function createQuestionAsker(deps: {
  metrics: Metrics
  /** Each classification's deadline, counted from its session's start. */
  classificationTimeoutMs: number
}): QuestionAsker {
  async function askOne(
    run: RunInHand,
    held: Held,
    classification: Classification,
    context: string,
    options: AskOptions,
  ): Promise<ClassificationResult> {
    const { request, tell } = run
    const prompt = buildPromptFromContext(context, classification)
    tell({ kind: 'question-started', id: request.id, name: classification.name, total: request.classifications.length })
    let result: ClassifyResult
    try {
      result = await held.session.ask(
        { context: prompt.blocks[0].text, question: prompt.blocks[1].text, deadlineMs: deps.classificationTimeoutMs },
        options,
      )
    } finally {
      // The clean-up (the process group gone, its directories removed) is off the answer's path:
      // the next questions are asked at once, and the run's end waits for it.
      const closing = endSession(run, held.session)
      run.closing.add(closing)
    }
    if (!result.ok) {
      return {
        name: classification.name,
        answer: null,
        error: { kind: result.error.kind, detail: result.error.detail },
      }
    }
    const usage = result.value.usage ?? undefined
    // Tokens were spent whether or not the answer parses; a session stopped
    // at its deadline reports none and adds nothing.
    if (request.runtime === 'acp' && usage !== undefined) recordAcpUsage(deps.metrics, request, usage)
    const answer = parseAnswer(result.value.text)
    if (!answer.ok) {
      return {
        name: classification.name,
        answer: null,
        error: { kind: 'malformed-answer', detail: answer.error },
        ...(usage ? { usage } : {}),
      }
    }
    return { name: classification.name, answer: answer.value, error: null, ...(usage ? { usage } : {}) }
  }

  return async (run, held, classification, context, options = {}) => {
    const result: ClassificationResult =
      held === null
        ? { name: classification.name, answer: null, error: SHUTTING_DOWN }
        : await askOne(run, held, classification, context, options)
    run.tell({
      kind: 'row',
      id: run.request.id,
      row: rowFromAnswer(classification, result.answer, result.error, result.usage),
      total: run.request.classifications.length,
    })
    return result
  }
}
