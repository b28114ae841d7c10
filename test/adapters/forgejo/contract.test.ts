import { forgeContract } from '../../ports/forge.contract.ts'
import { startForgejoHarness } from '../../support/fake-forgejo/harness.ts'

forgeContract('forgejo', (seed) => startForgejoHarness(seed))
