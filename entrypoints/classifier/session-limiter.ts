/**
 * At most `limit` model sessions at once across every run in hand
 * (docs/decisions.md: one claude process is ~190 MiB, one opencode ~600 MiB).
 * A session holds its place from the moment it is opened, asked or not: a
 * claude process left waiting on its stdin already holds ~155 MiB.
 *
 * Two kinds of place:
 * - `acquire`: a place for a session that is to be asked now. Waiters are
 *   served first come, first served, so a run's warm-first order holds.
 * - `trySpare`: a place for a session started ahead of its turn (a run's
 *   other questions, while its first is asked). Given only when one is free
 *   and nobody waits, and taken back the moment an `acquire` would have to
 *   wait: the holder is told, ends its session, and asks for a place again
 *   when its turn comes. So starting ahead never makes another run wait.
 *
 * Hand-written rather than p-limit: it needs waiters that leave the line
 * when the run is aborted, and places that can be taken back.
 */
export type Place = {
  /** Gives the place back; a second call does nothing. */
  release(): void
}

export type SparePlace = Place & {
  /** Makes it a place like any other, never taken back; false when it was taken back already. */
  keep(): boolean
  /** True once it was taken back. */
  takenBack(): boolean
}

export type SessionLimiter = {
  /** A place once one is free (or a spare one is taken back); rejects with the signal's reason if aborted while waiting. */
  acquire(signal?: AbortSignal): Promise<Place>
  /** A spare place if one is free and nobody waits, else null. `onTakenBack` runs (once, synchronously) when it is taken back. */
  trySpare(onTakenBack: () => void): SparePlace | null
  /** Places held now, spare ones included. */
  active(): number
  /** Spare places held now. */
  spare(): number
  /** Acquirers waiting for a place. */
  waiting(): number
}

type Spare = { kept: boolean; taken: boolean; released: boolean; onTakenBack: () => void }

export function createSessionLimiter(limit: number): SessionLimiter {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`session limit must be a whole number of at least 1, got ${limit}`)
  let held = 0
  const queue: Array<() => void> = []
  /** Spare places not kept yet, oldest first; the newest is taken back first. */
  const spares: Spare[] = []

  function placeFor(onRelease: () => void): Place {
    let released = false
    return {
      release() {
        if (released) return
        released = true
        onRelease()
      },
    }
  }

  /** A place is free again: the longest waiter gets it, else it is free. */
  function free(): void {
    const next = queue.shift()
    if (next === undefined) held -= 1
    else next()
  }

  /** Takes the newest spare place back for a waiter; false when there is none. */
  function takeBackOne(): boolean {
    const spare = spares.pop()
    if (spare === undefined) return false
    spare.taken = true
    try {
      spare.onTakenBack()
    } catch {
      // The holder's failure is its own; the place moves on.
    }
    return true
  }

  async function acquire(signal?: AbortSignal): Promise<Place> {
    if (signal?.aborted) throw signal.reason
    if (held < limit) {
      held += 1
      return placeFor(free)
    }
    // The place of a spare taken back passes straight to this acquirer.
    if (takeBackOne()) return placeFor(free)
    await new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = (): void => {
        const at = queue.indexOf(grant)
        if (at !== -1) queue.splice(at, 1)
        reject(signal?.reason)
      }
      queue.push(grant)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
    return placeFor(free)
  }

  function trySpare(onTakenBack: () => void): SparePlace | null {
    if (held >= limit || queue.length > 0) return null
    held += 1
    const spare: Spare = { kept: false, taken: false, released: false, onTakenBack }
    spares.push(spare)
    const unlist = () => {
      const at = spares.indexOf(spare)
      if (at !== -1) spares.splice(at, 1)
    }
    return {
      keep() {
        if (spare.taken || spare.released) return false
        spare.kept = true
        unlist()
        return true
      },
      takenBack: () => spare.taken,
      release() {
        if (spare.released) return
        spare.released = true
        unlist()
        // A place taken back went to its taker, who gives it back in turn.
        if (!spare.taken) free()
      },
    }
  }

  return {
    acquire,
    trySpare,
    active: () => held,
    spare: () => spares.length,
    waiting: () => queue.length,
  }
}
