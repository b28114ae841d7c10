/**
 * A bit-state backtracker over the programs re2js compiles, for finding a
 * rule's match and its groups near one keyword (core/redaction/windows.ts).
 *
 * re2js finds groups with its Pike VM on any program over 500 instructions
 * (our password rule has 3,978, gitleaks' generic one 454): about 1.5 µs a
 * character, read from where the search starts, which on a line holding
 * thousands of matches was seconds. This is re2js's own backtracker
 * (`BitState.tryBacktrack` and `Backtracker.execute` in re2js 2.10.0, MIT,
 * after RE2/J and Go's regexp), with three changes: it runs on a program of
 * any size, over a window of the line, with the visited set stamped by a
 * generation rather than cleared for each search; starts are tried only up
 * to `last`; and the assertions see the whole line, so a window's edges are
 * not taken for the line's. Each (instruction, place) pair is tried once,
 * so a search costs at most the program's size times the window's.
 *
 * It gives what re2js gives on the line (leftmost-first, the same groups):
 * test/core/redact-windows.test.ts compares the scan's matches with re2js's
 * on the whole line for every rule.
 */

import {
  ALT,
  CAPTURE,
  EMPTY_WIDTH,
  type Inst,
  MATCH,
  NOP,
  type Program,
  RUNE,
  RUNE_ANY_NOT_NL,
  RUNE1,
} from './program.ts'

export type { Program } from './program.ts'

/** re2js's assertion flags (its `Utils.EMPTY_*`). */
const BEGIN_LINE = 1
const END_LINE = 2
const BEGIN_TEXT = 4
const END_TEXT = 8
const WORD_BOUNDARY = 16
const NO_WORD_BOUNDARY = 32

/** The most (instruction, place) pairs one search may mark: past it the caller searches with re2js instead. */
export const MAX_STATES = 1 << 22

let visited = new Uint32Array(0)
let generation = 0
let JOBS = new Int32Array(3 * 256)

/** Whether the (instruction, place) pair at `n` is new to this search, marking it. */
function visit(mark: Uint32Array, stamp: number, n: number): boolean {
  if (mark[n] === stamp) return false
  mark[n] = stamp
  return true
}

function grow(jobs: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(jobs.length * 2)
  bigger.set(jobs)
  return bigger
}

function isWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
}

/** re2js's `Utils.emptyOpContext` on the line's own characters around `pos` (UTF-16 units, as re2js reads them). */
function context(text: string, pos: number): number {
  const r1 = pos > 0 ? text.charCodeAt(pos - 1) : -1
  const r2 = pos < text.length ? text.charCodeAt(pos) : -1
  let op = 0
  if (r1 < 0) op |= BEGIN_TEXT | BEGIN_LINE
  if (r1 === 0x0a) op |= BEGIN_LINE
  if (r2 < 0) op |= END_TEXT | END_LINE
  if (r2 === 0x0a) op |= END_LINE
  return op | (isWord(r1) !== isWord(r2) ? WORD_BOUNDARY : NO_WORD_BOUNDARY)
}

/** The code point at `pos` and its width, packed as re2js's `step` packs them (`rune << 3 | width`), or -1 past `limit`. */
function step(text: string, pos: number, limit: number): number {
  if (pos >= limit) return -1
  const c1 = text.charCodeAt(pos)
  if (c1 < 0xd800 || c1 > 0xdbff || pos + 1 >= text.length) return (c1 << 3) | 1
  const c2 = text.charCodeAt(pos + 1)
  if (c2 >= 0xdc00 && c2 <= 0xdfff) return (((c1 - 0xd800) * 1024 + (c2 - 0xdc00) + 0x10000) << 3) | 2
  return (c1 << 3) | 1
}

/**
 * The leftmost-first match of the program in `text` that starts at or after
 * `from` and at or before `last`, its groups as re2js gives them (two places
 * per group, -1 for one unset), or null when no match starts there. No path
 * may read at or past `limit` (where the caller has shown none can; one
 * that would makes the answer `undefined`, not a guess), and `prefix` is
 * the literal every match starts with ('' for none); `canStart` may rule
 * a place out as a start beforehand. `undefined` too when the window is
 * too large for one search (over MAX_STATES pairs).
 */
export function leftmostMatch(
  prog: Program,
  prefix: string,
  text: string,
  from: number,
  last: number,
  limit: number,
  canStart: (pos: number) => boolean = () => true,
): Int32Array | null | undefined {
  const width = limit - from + 1
  const size = prog.inst.length * width
  if (size > MAX_STATES) return undefined
  if (visited.length < size) {
    visited = new Uint32Array(Math.min(MAX_STATES, Math.max(size, visited.length * 2)))
    generation = 0
  }
  // A 32-bit stamp: the set is never cleared in practice (once in 4 billion searches).
  generation = (generation + 1) >>> 0
  if (generation === 0) {
    visited.fill(0)
    generation = 1
  }
  const ncap = prog.numCap
  const cap = new Int32Array(ncap).fill(-1)
  const insts = prog.inst
  const mark = visited
  const stamp = generation
  // The jobs: (instruction, whether it is a second visit, place), three to a job.
  let jobs = JOBS
  let top = 0
  let overran = false
  const tryFrom = (start: number): boolean => {
    top = 0
    if (!visit(mark, stamp, prog.start * width + (start - from))) return false
    jobs[top++] = prog.start
    jobs[top++] = 0
    jobs[top++] = start
    while (top > 0) {
      let pos = jobs[--top] as number
      let arg = jobs[--top] === 1
      let pc = jobs[--top] as number
      let first = true
      for (;;) {
        if (!first && !visit(mark, stamp, pc * width + (pos - from))) break
        first = false
        const inst = insts[pc] as Inst
        const op = inst.op
        if (op === ALT) {
          if (arg) {
            arg = false
            pc = inst.arg
            continue
          }
          if (top + 3 > jobs.length) jobs = grow(jobs)
          jobs[top++] = pc
          jobs[top++] = 1
          jobs[top++] = pos
          pc = inst.out
          continue
        }
        if (op >= RUNE && op <= RUNE_ANY_NOT_NL) {
          const r = step(text, pos, limit)
          if (r < 0) {
            // A path that would read past the window: what it finds is not known here, so neither is the answer.
            if (pos >= limit && limit < text.length) overran = true
            break
          }
          const c = r >> 3
          if (
            op === RUNE ? !inst.matchRune(c) : op === RUNE1 ? c !== inst.runes[0] : op === RUNE_ANY_NOT_NL && c === 0x0a
          )
            break
          pos += r & 7
          pc = inst.out
          continue
        }
        if (op === CAPTURE) {
          if (arg) {
            cap[inst.arg] = pos
            break
          }
          if (inst.arg < ncap) {
            if (top + 3 > jobs.length) jobs = grow(jobs)
            jobs[top++] = pc
            jobs[top++] = 1
            jobs[top++] = cap[inst.arg] as number
            cap[inst.arg] = pos
          }
          pc = inst.out
          continue
        }
        if (op === EMPTY_WIDTH) {
          if ((inst.arg & ~context(text, pos)) !== 0) break
          pc = inst.out
          continue
        }
        if (op === NOP) {
          pc = inst.out
          continue
        }
        if (op === MATCH) {
          if (ncap > 1) cap[1] = pos
          JOBS = jobs
          return true
        }
        break // FAIL; an instruction re2js compiles only for lookbehinds, which no rule has, fails too
      }
    }
    JOBS = jobs
    return false
  }
  for (let pos = from; pos <= last; ) {
    if (prefix !== '') {
      const at = text.indexOf(prefix, pos)
      if (at === -1 || at > last) return null
      pos = at
    }
    if (canStart(pos)) {
      cap.fill(-1)
      cap[0] = pos
      if (tryFrom(pos)) return cap
      if (overran) return undefined
    }
    const r = step(text, pos, text.length)
    if (r < 0) break
    pos += r & 7
  }
  return null
}
