/** One classification the way the service runs one: a session opened, asked at once, closed. */
import type { AskOptions, ClassifyInput, ClassifyResult, ModelRuntime } from '../../ports/model-runtime.ts'

export async function classifyOnce(
  runtime: ModelRuntime,
  input: ClassifyInput,
  options?: AskOptions,
): Promise<ClassifyResult> {
  const { context, question, deadlineMs, ...spec } = input
  const session = runtime.open(spec)
  try {
    return await session.ask({ context, question, deadlineMs }, options)
  } finally {
    await session.close()
  }
}
