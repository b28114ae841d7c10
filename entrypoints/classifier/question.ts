/**
 * One question of a run: its prompt asked on a session the run holds, the
 * answer parsed strictly, and the row told as soon as it ends. The ACP
 * runtime's spend is counted for each answer it reports usage for
 * (acp-usage.ts), and every session's cost toward the daily budget
 * (core/settings/spend.ts) is written to the ledger as it ends, whether or not anyone
 * still waits for the run: one without a figure (stopped at its deadline, a
 * failed process) is counted at its prompt's input tokens at the input
 * price (core/run/spend-estimate.ts), marked estimated, and says so in the log.
 */
import { type ClassificationResult, rowFromAnswer } from '../../core/run/aggregate.ts'
import { parseAnswer } from '../../core/run/answer.ts'
import { utf8Length } from '../../core/run/budget.ts'
import { buildPromptFromContext, SYSTEM_PROMPT } from '../../core/run/prompt.ts'
import { estimateSessionUsd } from '../../core/run/spend-estimate.ts'
import { classificationCostUsd } from '../../core/settings/spend.ts'
import type { Classification, Usage } from '../../core/wire/types.ts'
import type { Logger } from '../../ports/logger.ts'
import type { Metrics } from '../../ports/metrics.ts'
import type { AskOptions, ClassifyResult } from '../../ports/model-runtime.ts'
import type { SessionCostRecorder } from '../common/settings/spend-writes.ts'
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
  /** Writes each session's cost to the daily budget's ledger; none: nothing is written (the local check). */
  recordCost?: SessionCostRecorder
}): QuestionAsker {
  async function askOne(
    run: RunInHand,
    held: Held,
    classification: Classification,
    context: string,
    options: AskOptions,
  ): Promise<ClassificationResult> {
    const { request, tell } = run
    const prompt = buildPromptFromContext(context, classification, run.scopes?.get(classification.name)?.files ?? null)
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
    const promptBytes =
      utf8Length(SYSTEM_PROMPT) + utf8Length(prompt.blocks[0].text) + utf8Length(prompt.blocks[1].text)
    countSpend(run, classification.name, result.ok ? result.value : null, promptBytes)
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

  /**
   * Adds the session's cost to the run's and writes it to the ledger; a
   * session with no figure (no answer among them) counts its input tokens at
   * the input price, marked estimated, and is logged.
   */
  function countSpend(
    run: RunInHand,
    name: string,
    answer: { costUsd?: number; usage: Usage | null } | null,
    promptBytes: number,
  ): void {
    const { request } = run
    const figure = answer === null ? null : classificationCostUsd(request.runtime, answer, request.acp)
    const usd = figure ?? estimateSessionUsd(request.runtime, request.model, request.acp, promptBytes)
    if (figure === null) {
      deps.logger.info('review classifier classification has no cost figure; counted at its input tokens', {
        id: request.id,
        repo: request.repo,
        pr: request.pr,
        runtime: request.runtime,
        classification: name,
        cost_usd: usd,
      })
    }
    run.spend.usd += usd
    const { recordCost } = deps
    if (recordCost === undefined || !(usd > 0)) return
    const cost = { id: request.id, repo: request.repo, usd, estimated: figure === null }
    run.spend.writes.push(
      recordCost(cost).then((written) => {
        if (written) run.spend.recordedUsd += usd
      }),
    )
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
