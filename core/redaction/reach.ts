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
 * typed `any` in re2js 2.10.0's declarations); test/core/redaction/redact-windows.test.ts
 * checks its answers on known patterns and the windowed scan against the
 * whole line.
 */
import type { RE2JS } from 're2js'
import { type First, keywordWalk } from './keyword-walk.ts'
import { accepts, type Inst, isRuneOp, MATCH, type Program, RUNE_ANY_NOT_NL, successors, units } from './program.ts'

export type Reach = {
  keyworded: boolean
  lead: number
  spare: number
  longest: number
  inLoop(c: number): boolean
  /** `inLoop` for the ASCII characters, 1 where a repeat takes it. */
  loopAscii: Uint8Array
  /** Whether a match whose first keyword ends at `end` can start at `start` (the code point there given). */
  canStart(c: number, distance: number): boolean
}

const NOWHERE: Reach = {
  keyworded: false,
  lead: Number.POSITIVE_INFINITY,
  spare: 0,
  longest: 0,
  inLoop: () => true,
  loopAscii: new Uint8Array(128).fill(1),
  canStart: () => true,
}

/**
 * What reachOf works out, as numbers: kept in reach.json by
 * scripts/redaction-reach.ts, so a fresh process (a `prompt`, a new
 * classifier worker) need not walk every program again (about 230 ms for
 * all rules). `insts` is the program's size, checked before the rest is
 * trusted; `lead` and `longest` are -1 for none; `loops` and `firsts` name
 * instructions by their index in the program.
 */
export type StoredReach = {
  insts: number
  keyworded: boolean
  lead: number
  spare: number
  longest: number
  loops: number[]
  firsts: { pc: number; distances: number[] }[]
}

/** The reach as reach.json keeps it. */
export function stored(pattern: RE2JS, keywords: readonly string[]): StoredReach {
  const prog = pattern.re2().prog as Program
  const walked = walk(prog, keywords)
  const finite = (n: number) => (Number.isFinite(n) ? n : -1)
  return {
    insts: prog.inst.length,
    keyworded: walked.keyworded,
    lead: finite(walked.lead),
    spare: walked.spare,
    longest: finite(walked.longest),
    loops: walked.loops,
    firsts: walked.firsts.map((first) => ({ pc: first.pc, distances: [...first.distances] })),
  }
}

function walk(
  prog: Program,
  keywords: readonly string[],
): { keyworded: boolean; lead: number; spare: number; longest: number; loops: number[]; firsts: First[] } {
  // Lookbehinds (re2js's instructions past RUNE_ANY_NOT_NL) are not taken apart here: no match is bounded.
  if (prog.inst.some((inst) => inst.op > RUNE_ANY_NOT_NL))
    return { keyworded: false, lead: Number.POSITIVE_INFINITY, spare: 0, longest: 0, loops: [], firsts: [] }
  const { loops, spare, longest } = repeats(prog)
  return { ...keywordWalk(prog, keywords), spare, longest, loops }
}

/** The reach of a compiled pattern given the rule's (lower-case ASCII) keywords, from `kept` when it is this program's. */
export function reachOf(pattern: RE2JS, keywords: readonly string[], kept?: StoredReach): Reach {
  const prog = pattern.re2().prog as Program
  if (prog.inst.some((inst) => inst.op > RUNE_ANY_NOT_NL)) return NOWHERE
  const walked =
    kept !== undefined && kept.insts === prog.inst.length
      ? {
          keyworded: kept.keyworded,
          lead: kept.lead < 0 ? Number.POSITIVE_INFINITY : kept.lead,
          spare: kept.spare,
          longest: kept.longest < 0 ? Number.POSITIVE_INFINITY : kept.longest,
          loops: kept.loops,
          firsts: kept.firsts.map(({ pc, distances }) => ({
            pc,
            inst: prog.inst[pc] as Inst,
            distances: Uint32Array.from(distances),
          })),
        }
      : walk(prog, keywords)
  const loopInsts = walked.loops.map((pc) => prog.inst[pc] as Inst)
  const ascii = Uint8Array.from({ length: 128 }, (_, c) => (loopInsts.some((inst) => accepts(inst, c)) ? 1 : 0))
  const inLoop = (c: number) => (c < 128 ? ascii[c] === 1 : loopInsts.some((inst) => accepts(inst, c)))
  return {
    keyworded: walked.keyworded,
    lead: walked.lead,
    spare: walked.spare,
    longest: walked.longest,
    inLoop,
    loopAscii: ascii,
    canStart: starter(walked.firsts),
  }
}

/**
 * The rune instructions on a cycle (a repeat without bound), the most
 * characters a path takes with the others (`spare`), and with no cycle the
 * most units a path takes (`longest`, else Infinity): over the program's
 * strongly connected components (Tarjan's, iterative).
 */
function repeats(prog: Program): { loops: number[]; spare: number; longest: number } {
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

/** Whether a first instruction takes the code point and has the distance in its set. */
function starter(firsts: readonly First[]): (c: number, distance: number) => boolean {
  const byDistance: Inst[][] = Array.from({ length: 256 }, () => [])
  for (const first of firsts) {
    for (let d = 0; d < 256; d++)
      if (((first.distances[d >>> 5] as number) & (1 << (d & 31))) !== 0) byDistance[d]?.push(first.inst)
  }
  return (c, distance) => {
    const insts = distance >= 0 && distance < 256 ? byDistance[distance] : undefined
    if (insts === undefined) return false
    for (const inst of insts) if (accepts(inst, c)) return true
    return false
  }
}
