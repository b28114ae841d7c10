/**
 * A bit-state backtracker over the programs re2js compiles, for finding a
 * rule's match and its groups near one keyword (core/redaction/windows.ts).
 *
 * re2js finds groups with its Pike VM on any program over 500 instructions
 * (our password rule has 3,978, gitleaks' generic one 454): about 1.5 µs a
 * character, read from where the search starts, which on a line holding
 * thousands of matches was seconds. This is re2js's own backtracker
 * (`BitState.tryBacktrack` and `Backtracker.execute` in re2js 2.10.0, MIT
 * licence, Copyright (c) 2023 Oleksii Vasyliev; after RE2/J and Go's
 * regexp; see core/redaction/gitleaks/PROVENANCE.md), with these changes:
 * it runs on a program of any size, over a window of the line; the visited
 * set is a table stamped per search rather than cleared, or, for a window
 * wider than the table, lists of instructions by place; starts are tried
 * only up to `last`, and only where `canStart` allows; the assertions read
 * the whole line, so a window's edges are not taken for the line's; and a
 * path that would read past the window ends the search with no answer.
 * Each (instruction, place) pair is tried at most once in a search.
 *
 * It gives what re2js gives on the line (leftmost-first, the same groups):
 * test/core/redaction/redact-windows.test.ts compares the scan's matches with re2js's
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

/** The most (instruction, place) pairs a table holds, and one search may meet: past it the caller asks re2js. */
export const MAX_STATES = 1 << 22

let visited = new Uint32Array(0)
let generation = 0
let JOBS = new Int32Array(3 * 256)

/**
 * The pairs a wide window meets, by place: for each place (row) the
 * instructions met there, as a list in a pool. A search moves forward
 * through the text, meeting few instructions at each place, so rows keep
 * the memory to what it meets and the lists short.
 */
const ROWS = {
  stamps: new Uint32Array(0),
  heads: new Int32Array(0),
  pcs: new Int32Array(1 << 12),
  next: new Int32Array(1 << 12),
  count: 0,
}

function visitRows(stamp: number, row: number, pc: number): boolean {
  if (ROWS.stamps[row] !== stamp) {
    ROWS.stamps[row] = stamp
    ROWS.heads[row] = -1
  }
  for (let i = ROWS.heads[row] as number; i !== -1; i = ROWS.next[i] as number) if (ROWS.pcs[i] === pc) return false
  const k = ROWS.count
  if (k === ROWS.pcs.length) {
    const pcs = new Int32Array(k * 2)
    const next = new Int32Array(k * 2)
    pcs.set(ROWS.pcs)
    next.set(ROWS.next)
    ROWS.pcs = pcs
    ROWS.next = next
  }
  ROWS.pcs[k] = pc
  ROWS.next[k] = ROWS.heads[row] as number
  ROWS.heads[row] = k
  ROWS.count = k + 1
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
 * a place out as a start beforehand. `undefined` too when a search meets
 * more than MAX_STATES pairs.
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
  // A window too wide for the table is first searched as far as the table reaches: most searches read a few
  // hundred characters, not the window; one whose paths go further is searched again by rows.
  const near = from + Math.floor(MAX_STATES / prog.inst.length) - 1
  if (near < limit && last <= near) {
    const found = search(prog, prefix, text, from, last, near, canStart)
    if (found !== undefined) return found
  }
  return search(prog, prefix, text, from, last, limit, canStart)
}

/** A program as flat arrays, which the search reads faster than re2js's instruction objects. */
type Flat = { op: Uint8Array; out: Int32Array; arg: Int32Array; insts: Inst[] }

const FLAT = new WeakMap<Program, Flat>()

function flatOf(prog: Program): Flat {
  let flat = FLAT.get(prog)
  if (flat === undefined) {
    const n = prog.inst.length
    flat = { op: new Uint8Array(n), out: new Int32Array(n), arg: new Int32Array(n), insts: prog.inst }
    prog.inst.forEach((inst, pc) => {
      const f = flat as Flat
      f.op[pc] = inst.op
      f.out[pc] = inst.out
      // RUNE1 keeps its rune in `arg`, which re2js leaves unused there.
      f.arg[pc] = inst.op === RUNE1 ? (inst.runes[0] ?? -1) : inst.arg
    })
    FLAT.set(prog, flat)
  }
  return flat
}

/** Whether a rune instruction (`op`, its flat `arg`, the instruction itself) takes character `c`. */
function runeMatches(op: number, c: number, arg: number, inst: Inst): boolean {
  if (op === RUNE1) return c === arg
  if (op === RUNE) return inst.matchRune(c)
  return !(op === RUNE_ANY_NOT_NL && c === 0x0a)
}

function search(
  prog: Program,
  prefix: string,
  text: string,
  from: number,
  last: number,
  limit: number,
  canStart: (pos: number) => boolean,
): Int32Array | null | undefined {
  const width = limit - from + 1
  const size = prog.inst.length * width
  // A 32-bit stamp: the set is never cleared in practice (once in 4 billion searches).
  generation = (generation + 1) >>> 0
  if (generation === 0) {
    visited.fill(0)
    ROWS.stamps.fill(0)
    generation = 1
  }
  // A window too wide for a table of every (instruction, place) pair marks the pairs it meets by rows instead, up
  // to MAX_STATES of them (past that the search gives up and re2js answers).
  const dense = size <= MAX_STATES
  if (dense && visited.length < size)
    visited = new Uint32Array(Math.min(MAX_STATES, Math.max(size, visited.length * 2)))
  if (!dense && ROWS.stamps.length < width) {
    ROWS.stamps = new Uint32Array(Math.max(width, ROWS.stamps.length * 2))
    ROWS.heads = new Int32Array(ROWS.stamps.length)
  }
  ROWS.count = 0
  const ncap = prog.numCap
  const cap = new Int32Array(ncap).fill(-1)
  const { op: ops, out: outs, arg: args, insts } = flatOf(prog)
  const mark = visited
  const stamp = generation
  // The jobs: (instruction, whether it is a second visit, place), three to a job.
  let jobs = JOBS
  let top = 0
  let overran = false
  /** Marks (instruction, place) met; false when this search met it before. */
  const firstMeeting = (pc: number, pos: number): boolean => {
    if (!dense) return visitRows(stamp, pos - from, pc)
    const n = pc * width + (pos - from)
    if (mark[n] === stamp) return false
    mark[n] = stamp
    return true
  }
  const pushJob = (pc: number, second: number, pos: number): void => {
    if (top + 3 > jobs.length) jobs = grow(jobs)
    jobs[top++] = pc
    jobs[top++] = second
    jobs[top++] = pos
  }
  const tryFrom = (start: number): boolean => {
    top = 0
    if (!firstMeeting(prog.start, start)) return false
    pushJob(prog.start, 0, start)
    while (top > 0) {
      let pos = jobs[--top] as number
      let arg = jobs[--top] === 1
      let pc = jobs[--top] as number
      let first = true
      for (;;) {
        if (!first) {
          if (!firstMeeting(pc, pos)) break
          if (!dense && ROWS.count > MAX_STATES) {
            overran = true
            break
          }
        }
        first = false
        const op = ops[pc] as number
        if (op === ALT) {
          if (arg) {
            arg = false
            pc = args[pc] as number
            continue
          }
          pushJob(pc, 1, pos)
          pc = outs[pc] as number
          continue
        }
        if (op >= RUNE && op <= RUNE_ANY_NOT_NL) {
          const r = step(text, pos, limit)
          if (r < 0) {
            // A path that would read past the window: what it finds is not known here, so neither is the answer.
            if (pos >= limit && limit < text.length) overran = true
            break
          }
          if (!runeMatches(op, r >> 3, args[pc] as number, insts[pc] as Inst)) break
          pos += r & 7
          pc = outs[pc] as number
          continue
        }
        if (op === CAPTURE) {
          const slot = args[pc] as number
          if (arg) {
            cap[slot] = pos
            break
          }
          if (slot < ncap) {
            pushJob(pc, 1, cap[slot] as number)
            cap[slot] = pos
          }
          pc = outs[pc] as number
          continue
        }
        if (op === EMPTY_WIDTH) {
          if (((args[pc] as number) & ~context(text, pos)) !== 0) break
          pc = outs[pc] as number
          continue
        }
        if (op === NOP) {
          pc = outs[pc] as number
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
