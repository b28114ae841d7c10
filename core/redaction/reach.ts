/**
 * How far a rule's matches reach from its keywords, read off the program
 * re2js compiled its pattern to, so the scan can run a rule on the parts of
 * a line around its keywords instead of the whole line
 * (core/redaction/windows.ts; docs/decisions.md, "Redaction").
 *
 * A program is a graph of instructions: each path from its start to its
 * match instruction spells the strings one match can be. Walking that graph
 * beside an Aho-Corasick automaton of the rule's keywords (folded as the
 * keyword scan folds them) tells:
 *
 * - `keyworded`: whether every path spells one of the keywords whole, so
 *   every match holds a place the keyword scan reports;
 * - `lead`: the most UTF-16 units from a match's start to the end of the
 *   first keyword in it (Infinity when a repeat without bound can come
 *   first), so a match starts no earlier than that before a keyword's end;
 * - `spare` and `inLoop`: a path takes at most `spare` characters that no
 *   repeat without bound could take (`inLoop` says which a repeat can), so
 *   a match ends before the (spare + 1)th character `inLoop` refuses after
 *   its start; with no such repeat, `longest` bounds a match in units.
 *
 * Each check takes an assertion (`^`, `$`, `\b`) as one that may hold, and
 * every instruction as able to take anything it could: the bounds are
 * never under the truth. It reads re2js's compiled program (`re2().prog`,
 * typed `any` in re2js 2.10.0's declarations); test/core/redact-windows.test.ts
 * checks its answers on known patterns and the windowed scan against the
 * whole line.
 */
import type { RE2JS } from 're2js'

export type Reach = {
  keyworded: boolean
  lead: number
  spare: number
  longest: number
  inLoop(c: number): boolean
}

/** re2js's instruction codes (its `Inst`). */
const ALT = 1
const ALT_MATCH = 2
const CAPTURE = 3
const EMPTY_WIDTH = 4
// FAIL = 5: no successor
const MATCH = 6
const NOP = 7
const RUNE = 8
// RUNE1 = 9
const RUNE_ANY = 10
const RUNE_ANY_NOT_NL = 11
const FOLD_CASE = 1

type Inst = { op: number; out: number; arg: number; runes: Int32Array; matchRune(c: number): boolean }
type Prog = { inst: Inst[]; start: number }

/** A character the keyword scan folds to none of the keywords' characters. */
const OTHER = -1
const KELVIN = 0x212a
const LONG_S = 0x17f

/** What the keyword scan compares a character as: ASCII lower-cased, RE2's two non-ASCII folds of `k` and `s`, else nothing. */
export function scanFold(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c | 32 : c
  return c === KELVIN ? 0x6b : c === LONG_S ? 0x73 : OTHER
}

function isRuneOp(op: number): boolean {
  return op >= RUNE && op <= RUNE_ANY_NOT_NL
}

function accepts(inst: Inst, c: number): boolean {
  if (inst.op === RUNE_ANY) return true
  if (inst.op === RUNE_ANY_NOT_NL) return c !== 0x0a
  return inst.matchRune(c)
}

/** UTF-16 units one step of the instruction can take: 2 where it takes a code point past the BMP. */
function units(inst: Inst): number {
  if (inst.op === RUNE_ANY || inst.op === RUNE_ANY_NOT_NL) return 2
  const last = inst.runes[inst.runes.length - 1] ?? 0
  // A case-folded rune past ASCII may fold onto one past the BMP: counted as two, which only widens the bound.
  return last > 0xffff || (inst.runes.length === 1 && (inst.arg & FOLD_CASE) !== 0 && last >= 128) ? 2 : 1
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

/** An Aho-Corasick automaton of the keywords over the scan's symbols. */
function automaton(keywords: readonly string[]): { step(state: number, symbol: number): number; accepting: boolean[] } {
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
    if (symbol === OTHER) return 0
    let s = state
    for (;;) {
      const to = next[s]?.get(symbol)
      if (to !== undefined) return to
      if (s === 0) return 0
      s = fail[s] as number
    }
  }
  return { step, accepting }
}

/** The instructions an instruction leads to, and whether it takes a character on the way. */
function successors(inst: Inst): number[] {
  if (inst.op === ALT || inst.op === ALT_MATCH) return [inst.out, inst.arg]
  if (inst.op === NOP || inst.op === CAPTURE || inst.op === EMPTY_WIDTH || isRuneOp(inst.op)) return [inst.out]
  return []
}

const NOWHERE: Reach = { keyworded: false, lead: Number.POSITIVE_INFINITY, spare: 0, longest: 0, inLoop: () => true }

/** The reach of a compiled pattern given the rule's (lower-case ASCII) keywords. */
export function reachOf(pattern: RE2JS, keywords: readonly string[]): Reach {
  const prog = pattern.re2().prog as Prog
  if (prog.inst.some((inst) => inst.op > RUNE_ANY_NOT_NL)) return NOWHERE // lookbehinds: not taken apart here
  const { loops, spare, longest } = repeats(prog)
  const loopInsts = loops.map((pc) => prog.inst[pc] as Inst)
  const ascii = Uint8Array.from({ length: 128 }, (_, c) => (loopInsts.some((inst) => accepts(inst, c)) ? 1 : 0))
  const inLoop = (c: number) => (c < 128 ? ascii[c] === 1 : loopInsts.some((inst) => accepts(inst, c)))
  const { keyworded, lead } = keywordLead(prog, keywords)
  return { keyworded, lead, spare, longest, inLoop }
}

/**
 * The keyword walk: every path spells a keyword (`keyworded`), and the most
 * units a path takes before its first keyword ends (`lead`), over the graph
 * of (instruction, automaton state) pairs before any keyword ends: an
 * iterative depth-first walk, longest paths taken as it leaves a node.
 */
function keywordLead(prog: Prog, keywords: readonly string[]): { keyworded: boolean; lead: number } {
  const ac = automaton(keywords)
  const alphabet = [...new Set([...keywords.join('')].map((c) => c.charCodeAt(0)))]
  const folded = new Set(alphabet.flatMap(foldsTo))
  const states = ac.accepting.length
  // The automaton's moves, by state and symbol index (the alphabet's, then OTHER last).
  const moves = new Int32Array(states * (alphabet.length + 1))
  for (let state = 0; state < states; state++) {
    alphabet.forEach((x, i) => {
      moves[state * (alphabet.length + 1) + i] = ac.step(state, x)
    })
    moves[state * (alphabet.length + 1) + alphabet.length] = 0
  }
  const symbolIndexes: (Int32Array | null)[] = prog.inst.map((inst) =>
    isRuneOp(inst.op)
      ? Int32Array.from(symbols(inst, alphabet, folded), (x) => (x === OTHER ? alphabet.length : alphabet.indexOf(x)))
      : null,
  )
  const nexts: number[][] = prog.inst.map(successors)
  const size = prog.inst.length * states
  const status = new Uint8Array(size) // 0 new, 1 on the stack, 2 done
  const best = new Float64Array(size).fill(Number.NEGATIVE_INFINITY)
  const stackNode = new Int32Array(size)
  const stackEdge = new Int32Array(size)
  let depth = 0
  let keyworded = true
  let cyclic = false
  /** The node's edge `i`: its target (-1: a keyword ends there; -2: none) and the units it takes. */
  const edgeOf = (node: number, i: number): { to: number; w: number } | null => {
    const pc = Math.floor(node / states)
    const state = node - pc * states
    const inst = prog.inst[pc] as Inst
    const indexes = symbolIndexes[pc]
    if (indexes === null || indexes === undefined) {
      const to = nexts[pc]?.[i]
      return to === undefined ? null : { to: to * states + state, w: 0 }
    }
    const symbol = indexes[i]
    if (symbol === undefined) return null
    const next = moves[state * (alphabet.length + 1) + symbol] as number
    return { to: ac.accepting[next] === true ? -1 : inst.out * states + next, w: units(inst) }
  }
  const open = (node: number) => {
    if ((prog.inst[Math.floor(node / states)] as Inst).op === MATCH) keyworded = false
    status[node] = 1
    stackNode[depth] = node
    stackEdge[depth] = 0
    depth += 1
  }
  open(prog.start * states)
  while (depth > 0) {
    const node = stackNode[depth - 1] as number
    const edge = edgeOf(node, stackEdge[depth - 1] as number)
    if (edge === null) {
      status[node] = 2
      depth -= 1
      if (depth > 0) {
        const parent = stackNode[depth - 1] as number
        const w = (edgeOf(parent, stackEdge[depth - 1] as number) as { w: number }).w
        best[parent] = Math.max(best[parent] as number, w + (best[node] as number))
        stackEdge[depth - 1] = (stackEdge[depth - 1] as number) + 1
      }
      continue
    }
    if (edge.to === -1) best[node] = Math.max(best[node] as number, edge.w)
    else if (status[edge.to] === 1) cyclic = true
    else if (status[edge.to] === 0) {
      open(edge.to)
      continue
    } else best[node] = Math.max(best[node] as number, edge.w + (best[edge.to] as number))
    stackEdge[depth - 1] = (stackEdge[depth - 1] as number) + 1
  }
  const lead = best[prog.start * states] as number
  return { keyworded, lead: cyclic || lead < 0 ? Number.POSITIVE_INFINITY : lead }
}

/**
 * The rune instructions on a cycle (a repeat without bound), the most
 * characters a path takes with the others (`spare`), and with no cycle the
 * most units a path takes (`longest`, else Infinity): over the program's
 * strongly connected components (Tarjan's, iterative).
 */
function repeats(prog: Prog): { loops: number[]; spare: number; longest: number } {
  const n = prog.inst.length
  const index = new Int32Array(n).fill(-1)
  const low = new Int32Array(n)
  const component = new Int32Array(n).fill(-1)
  const onStack = new Uint8Array(n)
  const stack: number[] = []
  const cyclicComponent: boolean[] = []
  let counter = 0
  const work: { pc: number; next: number[]; i: number }[] = []
  const visit = (pc: number) => {
    index[pc] = counter
    low[pc] = counter
    counter += 1
    stack.push(pc)
    onStack[pc] = 1
    work.push({ pc, next: successors(prog.inst[pc] as Inst), i: 0 })
  }
  visit(prog.start)
  while (work.length > 0) {
    const top = work[work.length - 1] as (typeof work)[number]
    if (top.i < top.next.length) {
      const to = top.next[top.i] as number
      top.i += 1
      if (index[to] === -1) visit(to)
      else if (onStack[to] === 1) low[top.pc] = Math.min(low[top.pc] as number, index[to] as number)
      continue
    }
    work.pop()
    const parent = work[work.length - 1]
    if (parent !== undefined) low[parent.pc] = Math.min(low[parent.pc] as number, low[top.pc] as number)
    if (low[top.pc] !== index[top.pc]) continue
    const id = cyclicComponent.length
    let size = 0
    let pc: number
    do {
      pc = stack.pop() as number
      onStack[pc] = 0
      component[pc] = id
      size += 1
    } while (pc !== top.pc)
    cyclicComponent.push(size > 1 || successors(prog.inst[top.pc] as Inst).includes(top.pc))
  }
  const loops: number[] = []
  for (let pc = 0; pc < n; pc++) {
    const c = component[pc] as number
    if (c !== -1 && cyclicComponent[c] === true && isRuneOp((prog.inst[pc] as Inst).op)) loops.push(pc)
  }
  // Longest paths over the components (a DAG; Tarjan numbers a component after those it leads to).
  const spareOf = new Float64Array(cyclicComponent.length).fill(Number.NEGATIVE_INFINITY)
  const unitsOf = new Float64Array(cyclicComponent.length).fill(Number.NEGATIVE_INFINITY)
  const members: number[][] = cyclicComponent.map(() => [])
  for (let pc = 0; pc < n; pc++) if ((component[pc] as number) !== -1) members[component[pc] as number]?.push(pc)
  for (let c = 0; c < members.length; c++) {
    let spare = Number.NEGATIVE_INFINITY
    let long = Number.NEGATIVE_INFINITY
    for (const pc of members[c] as number[]) {
      const inst = prog.inst[pc] as Inst
      if (inst.op === MATCH) {
        spare = Math.max(spare, 0)
        long = Math.max(long, 0)
      }
      const own = isRuneOp(inst.op) && cyclicComponent[c] !== true ? 1 : 0
      const ownUnits = isRuneOp(inst.op) ? units(inst) : 0
      for (const to of successors(inst)) {
        const d = component[to] as number
        if (d === c) continue
        spare = Math.max(spare, own + (spareOf[d] as number))
        long = Math.max(long, ownUnits + (unitsOf[d] as number))
      }
    }
    spareOf[c] = spare
    unitsOf[c] = cyclicComponent[c] === true ? Number.POSITIVE_INFINITY : long
  }
  const start = component[prog.start] as number
  const spare = Math.max(0, spareOf[start] as number)
  const longest = loops.length > 0 ? Number.POSITIVE_INFINITY : Math.max(0, unitsOf[start] as number)
  return { loops, spare, longest }
}
