/**
 * The classifier process of the end-to-end tests that aren't about a
 * runtime: `entrypoints/classifier.ts`'s own `runClassifier` (configuration,
 * leftovers, the queue worker, the drain), with the in-memory model runtime
 * in place of `claude` and `opencode`, its answers asked of the test over
 * NATS (scripted-model.ts). Started by service-process.ts as
 * `startServiceProcess('scripted-classifier', …)`; `SCRIPTED_MODEL_SUBJECT`
 * names the test's subject. A test file, not a production entry: nothing a
 * deployed classifier's environment holds reaches it.
 */
import { runClassifier } from '../../entrypoints/classifier.ts'
import { scriptedRuntimes } from './scripted-model.ts'

const natsUrl = process.env.NATS_URL ?? ''
const subject = process.env.SCRIPTED_MODEL_SUBJECT ?? ''
if (subject === '') {
  process.stderr.write('scripted classifier: SCRIPTED_MODEL_SUBJECT is not set\n')
  process.exit(1)
}
await runClassifier(() => scriptedRuntimes(natsUrl, subject))
