/**
 * A rule's program walked beside an Aho-Corasick automaton of its keywords,
 * folded as the keyword scan folds them (keyword-scan.ts): whether every
 * path spells a keyword whole, and how far from a match's start its first
 * keyword can end. Part of core/redaction/reach.ts.
 *
 * Distances are kept as sets (bits 0 to 255, in UTF-16 units), per first
 * instruction a match can start with: a match that starts at `s` and whose
 * first keyword ends at `e` starts with an instruction taking the character
 * at `s` whose set holds `e - s`, which rules out most places before a
 * keyword at once (a rule whose XML form allows 46 characters before its
 * keyword allows one or two in its other forms, and those start with `<`).
 */
import {
  accepts,
  type Inst,
  isRuneOp,
  MATCH,
  type Program,
  RUNE_ANY,
  RUNE_ANY_NOT_NL,
  successors,
  units,
} from './program.ts'

/** A character the keyword scan folds to none of the keywords' characters. */
const OTHER = -1
const KELVIN = 0x212a
const LONG_S = 0x17f
/** Distances are followed up to here; a keyword that can end further from a match's start counts as unbounded. */
const WORDS = 8
const MAX_DISTANCE = WORDS * 32 - 1

/** What the keyword scan compares a character as: ASCII lower-cased, RE2's two non-ASCII folds of `k` and `s`, else nothing. */
export function scanFold(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c | 32 : c
  return c === KELVIN ? 0x6b : c === LONG_S ? 0x73 : OTHER
}

/** The characters that fold to `x` in the keyword scan. */
function foldsTo(x: number): number[] {
  const out = [x]
  if (x >= 0x61 && x <= 0x7a) out.push(x - 32)
  if (x === 0x6b) out.push(KELVIN)
  if (x === 0x73) out.push(LONG_S)
  return out
}

/** The keyword scan's symbols one step of the instruction can give: the keywords' characters, and OTHER for any else. */
function symbols(inst: Inst, alphabet: readonly number[], folded: ReadonlySet<number>): number[] {
  const out = alphabet.filter((x) => foldsTo(x).some((c) => accepts(inst, c)))
  if (inst.op === RUNE_ANY || inst.op === RUNE_ANY_NOT_NL) return [...out, OTHER]
  const runes = inst.runes
  if (runes.length === 1) {
    // A single rune, case folded or not: its fold orbit folds as the rune does in the scan (k, s aside, ASCII only).
    const x = scanFold(runes[0] ?? 0)
    return x === OTHER || !alphabet.includes(x) ? [...out, OTHER] : out
  }
  let total = 0
  let known = 0
  for (let i = 0; i + 1 < runes.length; i += 2) total += (runes[i + 1] ?? 0) - (runes[i] ?? 0) + 1
  for (const c of folded) if (accepts(inst, c)) known += 1
  return total > known ? [...out, OTHER] : out
}

/** An Aho-Corasick automaton of the keywords: its moves by state and symbol index (the alphabet's, OTHER last). */
function automaton(
  keywords: readonly string[],
  alphabet: readonly number[],
): { moves: Int32Array; accepting: boolean[] } {
  const next: Map<number, number>[] = [new Map()]
  const accepting = [false]
  for (const keyword of keywords) {
    let state = 0
    for (let i = 0; i < keyword.length; i++) {
      const c = keyword.charCodeAt(i)
      let to = next[state]?.get(c)
      if (to === undefined) {
        to = next.length
        next.push(new Map())
        accepting.push(false)
        next[state]?.set(c, to)
      }
      state = to
    }
    accepting[state] = true
  }
  const fail = new Array<number>(next.length).fill(0)
  const queue: number[] = [...(next[0]?.values() ?? [])]
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head] as number
    for (const [c, to] of next[state] ?? []) {
      let f = fail[state] as number
      while (f !== 0 && !next[f]?.has(c)) f = fail[f] as number
      const target = next[f]?.get(c)
      fail[to] = target !== undefined && target !== to ? target : 0
      accepting[to] = accepting[to] === true || accepting[fail[to] as number] === true
      queue.push(to)
    }
  }
  const step = (state: number, symbol: number): number => {
    let s = state
    for (;;) {
      const to = next[s]?.get(symbol)
      if (to !== undefined) return to
      if (s === 0) return 0
      s = fail[s] as number
    }
  }
  const width = alphabet.length + 1
  const moves = new Int32Array(next.length * width)
  for (let state = 0; state < next.length; state++) {
    alphabet.forEach((x, i) => {
      moves[state * width + i] = step(state, x)
    })
  }
  return { moves, accepting }
}

/** A first instruction of a match, and the distances from the match's start at which its first keyword can end. */
export type First = { pc: number; inst: Inst; distances: Uint32Array }

export type KeywordWalk = { keyworded: boolean; lead: number; firsts: First[] }

/** The walk: over (instruction, automaton state) pairs before any keyword ends, depth first, sets taken as it leaves a node. */
export function keywordWalk(prog: Program, keywords: readonly string[]): KeywordWalk {
  const alphabet = [...new Set([...keywords.join('')].map((c) => c.charCodeAt(0)))]
  const folded = new Set(alphabet.flatMap(foldsTo))
  const { moves, accepting } = automaton(keywords, alphabet)
  const states = accepting.length
  const width = alphabet.length + 1
  // Instructions of one class give the same symbols: a bounded repeat compiles to a copy of its class per count.
  const byClass = new Map<string, number[]>()
  const symbolIndexes: (number[] | null)[] = prog.inst.map((inst) => {
    if (!isRuneOp(inst.op)) return null
    const key = `${inst.op}/${inst.arg & 1}/${inst.runes.join(',')}`
    let indexes = byClass.get(key)
    if (indexes === undefined) {
      indexes = symbols(inst, alphabet, folded).map((x) => (x === OTHER ? alphabet.length : alphabet.indexOf(x)))
      byClass.set(key, indexes)
    }
    return indexes
  })
  const nexts = prog.inst.map(successors)
  // A step takes one unit, or two for a code point past the BMP where the instruction may take one.
  const widths = prog.inst.map((inst) => (isRuneOp(inst.op) ? units(inst) : 0))
  const size = prog.inst.length * states
  const status = new Uint8Array(size) // 0 new, 1 on the stack, 2 done
  const sets = new Uint32Array(size * WORDS)
  let keyworded = true
  let unbounded = false
  /** Adds set `from` (a node's, or the single distance 0 when `from` is -1) moved on by `by` units to the set at `into[at]`. */
  const add = (to: number, from: number, by: number, into = sets, at = to * WORDS) => {
    if (from === -1) {
      if (by > MAX_DISTANCE) unbounded = true
      else into[at + (by >>> 5)] = (into[at + (by >>> 5)] as number) | (1 << (by & 31))
      return
    }
    const q = by >>> 5
    const r = by & 31
    for (let i = 0; i < WORDS; i++) {
      const v = sets[from * WORDS + i] as number
      if (v === 0) continue
      const low = r === 0 ? v : v << r
      const high = r === 0 ? 0 : v >>> (32 - r)
      if (i + q < WORDS) into[at + i + q] = (into[at + i + q] as number) | low
      else if (low !== 0) unbounded = true
      if (i + q + 1 < WORDS) into[at + i + q + 1] = (into[at + i + q + 1] as number) | high
      else if (high !== 0) unbounded = true
    }
  }
  /** How many edges the node has; `edge(node, i)` then sets `to` (target node, -1 where a keyword ends) and `w` (units). */
  const edgeCount = (node: number): number => {
    const pc = Math.floor(node / states)
    const indexes = symbolIndexes[pc]
    if (indexes === null || indexes === undefined) return (nexts[pc] as number[]).length
    return indexes.length * (widths[pc] as number)
  }
  let to = 0
  let w = 0
  const edge = (node: number, i: number): void => {
    const pc = Math.floor(node / states)
    const state = node - pc * states
    const indexes = symbolIndexes[pc]
    if (indexes === null || indexes === undefined) {
      to = ((nexts[pc] as number[])[i] as number) * states + state
      w = 0
      return
    }
    const nw = widths[pc] as number
    const next = moves[state * width + (indexes[Math.floor(i / nw)] as number)] as number
    to = accepting[next] === true ? -1 : (prog.inst[pc] as Inst).out * states + next
    w = 1 + (i % nw)
  }
  /** The node's edges as pairs, for the first instructions' sets. */
  const edges = (node: number): [number, number][] => {
    const out: [number, number][] = []
    for (let i = 0; i < edgeCount(node); i++) {
      edge(node, i)
      out.push([to, w])
    }
    return out
  }
  const stackNode = new Int32Array(size)
  const stackEdge = new Int32Array(size)
  const stackCount = new Int32Array(size)
  let depth = 0
  const open = (node: number) => {
    if ((prog.inst[Math.floor(node / states)] as Inst).op === MATCH) keyworded = false
    status[node] = 1
    stackNode[depth] = node
    stackEdge[depth] = 0
    stackCount[depth] = edgeCount(node)
    depth += 1
  }
  open(prog.start * states)
  while (depth > 0) {
    const node = stackNode[depth - 1] as number
    const i = stackEdge[depth - 1] as number
    if (i >= (stackCount[depth - 1] as number)) {
      status[node] = 2
      depth -= 1
      if (depth > 0) {
        const parent = stackNode[depth - 1] as number
        edge(parent, stackEdge[depth - 1] as number)
        add(parent, node, w)
        stackEdge[depth - 1] = (stackEdge[depth - 1] as number) + 1
      }
      continue
    }
    edge(node, i)
    if (to === -1) add(node, -1, w)
    else if (status[to] === 1) unbounded = true
    else if (status[to] === 0) {
      open(to)
      continue
    } else add(node, to, w)
    stackEdge[depth - 1] = i + 1
  }
  if (unbounded) return { keyworded, lead: Number.POSITIVE_INFINITY, firsts: [] }
  let lead = -1
  for (let d = 0; d <= MAX_DISTANCE; d++)
    if (((sets[prog.start * states * WORDS + (d >>> 5)] as number) & (1 << (d & 31))) !== 0) lead = d
  return { keyworded, lead: lead < 0 ? Number.POSITIVE_INFINITY : lead, firsts: firstsOf(prog, states, edges, add) }
}

/** The rune instructions a match can start with, each with its distances, from the start's closure in state 0. */
function firstsOf(
  prog: Program,
  states: number,
  edges: (node: number) => [number, number][],
  add: (to: number, from: number, by: number, into: Uint32Array<ArrayBuffer>, at: number) => void,
): First[] {
  const seen = new Set<number>()
  const pending = [prog.start]
  const firsts: First[] = []
  while (pending.length > 0) {
    const pc = pending.pop() as number
    if (seen.has(pc)) continue
    seen.add(pc)
    const inst = prog.inst[pc] as Inst
    if (!isRuneOp(inst.op)) {
      pending.push(...successors(inst))
      continue
    }
    const distances = new Uint32Array(WORDS)
    for (const [to, w] of edges(pc * states)) add(0, to, w, distances, 0)
    firsts.push({ pc, inst, distances })
  }
  return firsts
}
