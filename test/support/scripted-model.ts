/**
 * The model of the tests whose subject is not a runtime (the pages, the
 * controller's routes, try-outs, drain, budget, `check`'s own logic): the
 * in-memory model runtime, whose script is the test's. The end-to-end tests
 * run the classifier as its own process (scripted-classifier.ts), and its
 * runtime asks the test for each answer over the same NATS the run came on
 * (`scriptedRuntimes` there, `startScriptedModel` here); a test of `check`
 * hands `localScriptedModel().runtimes` to the command in its own process.
 * Either way the controller, the queue, the classifier's scheduling,
 * deadlines and drain are the real ones, and only the model is the test's:
 * answers, failures, hangs and holds decided per question, with no `claude`
 * or `opencode` started.
 *
 * Honest because the in-memory runtime keeps the contract the real runtimes
 * keep (test/ports/model-runtime.contract.ts): deadlines from the ask, aborts,
 * closes, and an answer the provider holds back.
 */
import { createRecordingLogger } from '../../adapters/memory/logger.ts'
import {
  answered,
  createScriptedModelRuntime,
  failed,
  hang,
  type ScriptedModelRuntime,
} from '../../adapters/memory/model-runtime.ts'
import { connectNats, type NatsClient } from '../../adapters/nats/connection.ts'
import type { AcpProvider, Effort, Runtime, Usage } from '../../core/wire/types.ts'
import type { ClassifyInput, ClassifyResult, ModelFailure } from '../../ports/model-runtime.ts'

/** The subject the scripted classifier of `swarm` asks its questions on. */
export function modelSubject(swarm: string): string {
  return `test-model.${swarm}`
}

/** One question as the classifier asked it, with the rule and the PR read back out of it. */
export type Asked = {
  runtime: Runtime
  runId: string
  model: string
  effort: Effort | null
  acp: AcpProvider | null
  /** The runtime's key as the classifier read it from its secret store. */
  apiKey: string
  repo: string
  pr: number
  /** The shared block (header, commits, diff) and the question, as a provider would get them. */
  context: string
  question: string
  deadlineMs: number
  /** The rule's name and description, from the question's `Name:` and `Description:` lines. */
  rule: string
  description: string
}

export type Verdict = { verdict: 'match' | 'no-match' | 'not-applicable'; certainty: number; reason: string }

/** What the model does with one question: a verdict, a raw text, a failure, or nothing ever (`hang`). */
export type ModelReply = Verdict | { text: string } | { failure: ModelFailure['kind']; detail: string } | 'hang'

export type ModelScript = (asked: Asked) => ModelReply | Promise<ModelReply>

/** What a scripted answer reports spending: token counts like a warm question's, and claude's own cost figure. */
export const SCRIPTED_USAGE: Usage = { input: 120, output: 30, cache_read: 1_800, cache_write: 0 }
export const SCRIPTED_COST_USD = 0.0015

/** Every rule matches at 95 but `no-ads`, which doesn't at 97: a PR that passes both of TWO_RULES_YAML. */
export function passingVerdict(rule: string): Verdict {
  return rule === 'no-ads'
    ? { verdict: 'no-match', certainty: 97, reason: 'No commit message advertises anything.' }
    : { verdict: 'match', certainty: 95, reason: 'Every timestamp the PR adds carries a zone.' }
}

export const PASSING: ModelScript = ({ rule }) => passingVerdict(rule)

/** The test's side of the model, wherever the runtime runs. */
export type ModelControl = {
  /** Every question asked so far, in the order they came. */
  readonly asked: Asked[]
  /** Replaces the script. */
  script(next: ModelScript): void
  /** Holds the answers to the questions `which` picks until the returned function is called; calling it again does nothing. */
  hold(which: (asked: Asked) => boolean): () => void
}

type Answerer = ModelControl & { answer(asked: Asked): Promise<ModelReply> }

function createAnswerer(first: ModelScript): Answerer {
  let current = first
  const asked: Asked[] = []
  const holds = new Set<{ which: (asked: Asked) => boolean; released: Promise<void> }>()
  return {
    asked,
    script(next) {
      current = next
    },
    hold(which) {
      let release = () => {}
      const hold = {
        which,
        released: new Promise<void>((resolve) => {
          release = resolve
        }),
      }
      holds.add(hold)
      return () => {
        holds.delete(hold)
        release()
      }
    },
    async answer(one) {
      asked.push(one)
      await Promise.all([...holds].filter((hold) => hold.which(one)).map((hold) => hold.released))
      return current(one)
    },
  }
}

const line = (text: string, label: string) => new RegExp(`^${label}: (.*)$`, 'm').exec(text)?.[1] ?? ''

/** The question as a script sees it. */
function askedOf(runtime: Runtime, input: ClassifyInput): Asked {
  const { system: _system, signal: _signal, labels, ...rest } = input
  return {
    ...rest,
    runtime,
    repo: labels.repo,
    pr: labels.pr,
    rule: line(input.question, 'Name'),
    description: line(input.question, 'Description'),
  }
}

type WireReply =
  | { ok: true; text: string; usage: Usage; cost_usd?: number }
  | { ok: false; kind: ModelFailure['kind']; detail: string }

function wireReply(reply: Exclude<ModelReply, 'hang'>, runtime: Runtime): WireReply {
  if ('failure' in reply) return { ok: false, kind: reply.failure, detail: reply.detail }
  const text = 'text' in reply ? reply.text : JSON.stringify(reply)
  // The ACP runtime reports no cost of its own: the budget prices its usage.
  return runtime === 'acp'
    ? { ok: true, text, usage: SCRIPTED_USAGE }
    : { ok: true, text, usage: SCRIPTED_USAGE, cost_usd: SCRIPTED_COST_USD }
}

function resultOf(reply: WireReply): ClassifyResult {
  if (!reply.ok) return failed(reply.kind, reply.detail)
  return reply.cost_usd === undefined
    ? answered(reply.text, reply.usage)
    : { ok: true, value: { text: reply.text, usage: reply.usage, costUsd: reply.cost_usd } }
}

function runtimesFrom(ask: (runtime: Runtime, input: ClassifyInput) => Promise<ClassifyResult>) {
  const make = (runtime: Runtime) => createScriptedModelRuntime((input) => ask(runtime, input))
  return { 'api-key': make('api-key'), subscription: make('subscription'), acp: make('acp') } satisfies Record<
    Runtime,
    ScriptedModelRuntime
  >
}

/** The model in this process: the runtimes to hand the code under test, and the test's side. */
export function localScriptedModel(
  first = PASSING,
): ModelControl & { runtimes: Record<Runtime, ScriptedModelRuntime> } {
  const answerer = createAnswerer(first)
  const runtimes = runtimesFrom(async (runtime, input) => {
    const reply = await answerer.answer(askedOf(runtime, input))
    return reply === 'hang' ? hang() : resultOf(wireReply(reply, runtime))
  })
  return { asked: answerer.asked, script: answerer.script, hold: answerer.hold, runtimes }
}

/**
 * The classifier process's side: the three runtimes, each the in-memory one, whose script sends the
 * question to `subject` and answers with what comes back. The connection is made at the first question.
 */
export function scriptedRuntimes(natsUrl: string, subject: string): Record<Runtime, ScriptedModelRuntime> {
  let client: Promise<NatsClient> | undefined
  const connection = () => {
    // A failed connect fails that question (a runtime failure in its row), and the next one tries again.
    client ??= connectNats({
      url: natsUrl,
      name: 'scripted-model',
      firstConnectTimeoutMs: 10_000,
      reconnectTimeWaitMs: 100,
      logger: createRecordingLogger(),
    }).catch((error: unknown) => {
      client = undefined
      throw error
    })
    return client
  }
  return runtimesFrom(async (runtime, input) => {
    const nats = await connection()
    // The deadline or an abort settles the ask first; the request's own timeout only frees it after.
    const reply = await nats.connection.request(subject, JSON.stringify(askedOf(runtime, input)), {
      timeout: input.deadlineMs + 60_000,
    })
    return resultOf(JSON.parse(reply.string()) as WireReply)
  })
}

export type ScriptedModel = ModelControl & { stop(): Promise<void> }

/** The test's side over NATS: answers the questions of `swarm`'s scripted classifiers on the NATS at `natsUrl`. */
export async function startScriptedModel(natsUrl: string, swarm: string, first = PASSING): Promise<ScriptedModel> {
  const client = await connectNats({
    url: natsUrl,
    name: 'scripted-model-test',
    firstConnectTimeoutMs: 10_000,
    reconnectTimeWaitMs: 100,
    logger: createRecordingLogger(),
  })
  const answerer = createAnswerer(first)
  const subscription = client.connection.subscribe(modelSubject(swarm), {
    callback(error, msg) {
      if (error !== null) return
      const one = JSON.parse(msg.string()) as Asked
      // A script that throws answers as a runtime failure, as the in-memory runtime turns one.
      void answerer.answer(one).then(
        (reply) => {
          if (reply !== 'hang') msg.respond(JSON.stringify(wireReply(reply, one.runtime)))
        },
        (error: unknown) => {
          msg.respond(JSON.stringify({ ok: false, kind: 'runtime', detail: String(error) } satisfies WireReply))
        },
      )
    },
  })
  await client.connection.flush()
  return {
    asked: answerer.asked,
    script: answerer.script,
    hold: answerer.hold,
    async stop() {
      subscription.unsubscribe()
      await client.close()
    },
  }
}
