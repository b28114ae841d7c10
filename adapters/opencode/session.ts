/**
 * One classification as ACP messages on a started `opencode acp`: a new
 * session (opened ahead of its question, and checked to run our agent on
 * our model before the prompt), one prompt of two text blocks, the
 * assistant's text collected from the updates, and the usage from the
 * prompt's result.
 */
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { err, ok, type Result } from '../../core/base/result.ts'
import type { Effort, Usage } from '../../core/wire/types.ts'
import type { ModelAnswer } from '../../ports/model-runtime.ts'
import type { AcpConnection } from './acp-client.ts'
import { AGENT_NAME, qualifiedModel } from './config.ts'
import type { SessionUpdateListener } from './process.ts'

export const ACP_PROTOCOL_VERSION = 1

export type SessionHost = {
  connection: AcpConnection
  subscribe(sessionId: string, listener: SessionUpdateListener): () => void
}

export type PromptInput = {
  model: string
  effort: Effort | null
  context: string
  question: string
}

/** A session as `session/new` made it: its id and the options it runs with, checked before the prompt. */
export type NewSession = {
  sessionId: string
  configOptions: ReadonlyArray<{ id: string; currentValue?: unknown }>
}

const NewSessionResult = Type.Object({
  sessionId: Type.String(),
  configOptions: Type.Optional(
    Type.Array(Type.Object({ id: Type.String(), currentValue: Type.Optional(Type.Unknown()) })),
  ),
})

const Count = Type.Optional(Type.Number({ minimum: 0 }))

const PromptResult = Type.Object({
  stopReason: Type.String(),
  usage: Type.Optional(
    Type.Object({
      inputTokens: Count,
      outputTokens: Count,
      thoughtTokens: Count,
      cachedReadTokens: Count,
      cachedWriteTokens: Count,
    }),
  ),
})

type PromptUsage = NonNullable<(typeof PromptResult)['static']['usage']>

const MessageChunk = Type.Object({
  sessionUpdate: Type.Literal('agent_message_chunk'),
  messageId: Type.Optional(Type.String()),
  content: Type.Object({ type: Type.String(), text: Type.Optional(Type.String()) }),
})

/** The handshake, once per process; no `authenticate` is needed for a configured provider. */
export async function initializeAgent(connection: AcpConnection): Promise<Result<void, string>> {
  const answer = await connection.request('initialize', {
    protocolVersion: ACP_PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'review-classifier', version: '0' },
  })
  return answer.ok ? ok(undefined) : err(`initialize failed: ${answer.error.message}`)
}

/** Opens a fresh session; a failure's text is unredacted, the caller redacts it. */
export async function newSession(host: SessionHost, cwd: string): Promise<Result<NewSession, string>> {
  const created = await host.connection.request('session/new', { cwd, mcpServers: [] })
  if (!created.ok) return err(`session/new failed: ${created.error.message}`)
  if (!Value.Check(NewSessionResult, created.value)) return err('session/new answered in an unknown shape')
  return ok({ sessionId: created.value.sessionId, configOptions: created.value.configOptions ?? [] })
}

/**
 * Runs the one prompt on a session from {@link newSession}, once its
 * options are checked to be ours; a failure's text is unredacted, the
 * caller redacts it.
 */
export async function promptSession(
  host: SessionHost,
  session: NewSession,
  input: PromptInput,
): Promise<Result<ModelAnswer, string>> {
  const { sessionId } = session
  const mismatch = configMismatch(session.configOptions, input)
  if (mismatch !== null) return err(mismatch)

  // A tool-less one-shot writes exactly one assistant message. A second
  // one means the provider's stream ended without a finish_reason and
  // opencode asked again, which it would do until cancelled.
  const texts = new Map<string, string>()
  let secondMessage: (() => void) | undefined
  const looped = new Promise<'looped'>((resolve) => {
    secondMessage = () => resolve('looped')
  })
  const unsubscribe = host.subscribe(sessionId, (update) => {
    if (!Value.Check(MessageChunk, update) || update.content.type !== 'text') return
    const id = update.messageId ?? ''
    if (!texts.has(id) && texts.size > 0) secondMessage?.()
    texts.set(id, (texts.get(id) ?? '') + (update.content.text ?? ''))
  })
  try {
    const prompt = host.connection.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: input.context },
        { type: 'text', text: input.question },
      ],
    })
    const answer = await Promise.race([prompt, looped])
    if (answer === 'looped') {
      host.connection.notify('session/cancel', { sessionId })
      return err('the provider ended its answer without a finish_reason, and opencode asked again')
    }
    // opencode wraps every provider error as "Internal error: <the provider's message>".
    if (!answer.ok) return err(`provider error: ${answer.error.message.replace(/^Internal error: /, '')}`)
    if (!Value.Check(PromptResult, answer.value)) return err('session/prompt answered in an unknown shape')
    if (answer.value.stopReason !== 'end_turn') return err(`the session stopped with ${answer.value.stopReason}`)
    return ok({ text: [...texts.values()].join(''), usage: usageOf(answer.value.usage) })
  } finally {
    unsubscribe()
  }
}

/**
 * Fails closed when opencode would not run what we configured: another agent
 * would send its own prompt (and tools), another model goes to another
 * provider, and without our effort variant the effort is not applied.
 */
function configMismatch(
  options: ReadonlyArray<{ id: string; currentValue?: unknown }>,
  input: PromptInput,
): string | null {
  const current = (id: string) => options.find((option) => option.id === id)?.currentValue
  const expected: Array<[string, string]> = [
    ['mode', AGENT_NAME],
    ['model', qualifiedModel(input.model)],
  ]
  if (input.effort !== null) expected.push(['effort', input.effort])
  for (const [id, value] of expected) {
    const actual = current(id)
    if (actual !== value)
      return `opencode would run with ${id} ${JSON.stringify(actual ?? null)}, not ${JSON.stringify(value)}`
  }
  return null
}

/**
 * ACP's `inputTokens` are the uncached input, and its `outputTokens` leave out
 * the reasoning, which the provider bills as output. All zero means the
 * provider reported no usage, which is not a count of zero.
 */
function usageOf(usage: PromptUsage | undefined): Usage | null {
  if (usage === undefined) return null
  const counted: Usage = {
    input: usage.inputTokens ?? 0,
    output: (usage.outputTokens ?? 0) + (usage.thoughtTokens ?? 0),
    cache_read: usage.cachedReadTokens ?? 0,
    cache_write: usage.cachedWriteTokens ?? 0,
  }
  return counted.input + counted.output + counted.cache_read + counted.cache_write === 0 ? null : counted
}
