/**
 * One question of a run: its prompt asked on a session the run holds, the
 * answer parsed strictly, and the row told as soon as it ends. The ACP
 * runtime's spend is counted for each answer it reports usage for
 * (acp-usage.ts), and every answer's cost toward the daily budget
 * (core/spend.ts): one without a figure counts 0, and says so in the log.
 */
import { type ClassificationResult, rowFromAnswer } from '../../core/aggregate.ts'
import { parseAnswer } from '../../core/answer.ts'
import { buildPromptFromContext } from '../../core/prompt.ts'
import { classificationCostUsd } from '../../core/spend.ts'
import type { Classification, Usage } from '../../core/types.ts'
import type { Logger } from '../../ports/logger.ts'
import type { Metrics } from '../../ports/metrics.ts'
import type { AskOptions, ClassifyResult } from '../../ports/model-runtime.ts'
import { recordAcpUsage } from './acp-usage.ts'
import { endSession, type Held, type RunInHand } from './run-in-hand.ts'

/** Asks `classification` on `held` (null: no session came, the run was stopped first) and tells its row. */
export type QuestionAsker = (
  run: RunInHand,
  held: Held | null,
  classification: Classification,
  context: string,
  options?: AskOptions,
) => Promise<ClassificationResult>

/** No session came: the run was stopped first (the classifier shutting down, the run cancelled), as its signal says why. */
function noSession(run: RunInHand): ClassificationResult['error'] {
  const reason: unknown = run.signal.reason
  const why = reason instanceof Error ? reason.message : 'the run was stopped'
  return { kind: 'runtime', detail: `cancelled: ${why}, before this question had a model session` }
}

export function createQuestionAsker(deps: {
  metrics: Metrics
  logger: Logger
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
    countSpend(run, classification.name, result.ok ? result.value : null)
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

  /** Adds the answer's cost to the run's; a classification with no figure (no answer among them) counts 0 and is logged. */
  function countSpend(run: RunInHand, name: string, answer: { costUsd?: number; usage: Usage | null } | null): void {
    const { request } = run
    const usd = answer === null ? null : classificationCostUsd(request.runtime, answer, request.acp)
    if (usd !== null) {
      run.spend.usd += usd
      return
    }
    deps.logger.info('review classifier classification has no cost figure; counted as 0', {
      id: request.id,
      repo: request.repo,
      pr: request.pr,
      runtime: request.runtime,
      classification: name,
    })
  }

  return async (run, held, classification, context, options = {}) => {
    const result: ClassificationResult =
      held === null
        ? { name: classification.name, answer: null, error: noSession(run) }
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
