/**
 * The forge port's contract, run against every adapter (memory, Forgejo
 * behind a fake forge server). `make` builds a forge holding exactly the
 * seed it is given, fresh for each test; see `forge.fixtures.ts`.
 */

import type { MakeForge } from './forge.fixtures.ts'
import { forgeCommentsContract } from './forge-comments.contract.ts'
import { forgeReaderContract } from './forge-reader.contract.ts'
import { forgeWriterContract } from './forge-writer.contract.ts'

export type { MakeForge } from './forge.fixtures.ts'

export function forgeContract(name: string, make: MakeForge): void {
  forgeReaderContract(name, make)
  forgeWriterContract(name, make)
  forgeCommentsContract(name, make)
}
