/**
 * What core/redaction reads of the programs re2js compiles patterns to
 * (`RE2JS.re2().prog`, typed `any` in re2js 2.10.0's declarations): the
 * instruction codes of its `Inst`, and a few questions asked of one
 * instruction. reach.ts and keyword-walk.ts read a program's shape from
 * them, bitstate.ts runs it.
 */

export const ALT = 1
export const ALT_MATCH = 2
export const CAPTURE = 3
export const EMPTY_WIDTH = 4
export const MATCH = 6
export const NOP = 7
export const RUNE = 8
export const RUNE1 = 9
export const RUNE_ANY = 10
export const RUNE_ANY_NOT_NL = 11
/** An instruction's `arg` bit for a rune matched ignoring case. */
export const FOLD_CASE = 1

export type Inst = { op: number; out: number; arg: number; runes: Int32Array; matchRune(c: number): boolean }
export type Program = { inst: Inst[]; start: number; numCap: number }

export function isRuneOp(op: number): boolean {
  return op >= RUNE && op <= RUNE_ANY_NOT_NL
}

/** Whether a rune instruction takes the code point. */
export function accepts(inst: Inst, c: number): boolean {
  if (inst.op === RUNE_ANY) return true
  if (inst.op === RUNE_ANY_NOT_NL) return c !== 0x0a
  return inst.matchRune(c)
}

/** The most UTF-16 units one step of the instruction can take: 2 where it may take a code point past the BMP. */
export function units(inst: Inst): number {
  if (inst.op === RUNE_ANY || inst.op === RUNE_ANY_NOT_NL) return 2
  const last = inst.runes[inst.runes.length - 1] ?? 0
  // A case-folded rune past ASCII may fold onto one past the BMP: counted as two, which only widens a bound.
  return last > 0xffff || (inst.runes.length === 1 && (inst.arg & FOLD_CASE) !== 0 && last >= 128) ? 2 : 1
}

/** The instructions an instruction leads to. */
export function successors(inst: Inst): number[] {
  if (inst.op === ALT || inst.op === ALT_MATCH) return [inst.out, inst.arg]
  if (inst.op === NOP || inst.op === CAPTURE || inst.op === EMPTY_WIDTH || isRuneOp(inst.op)) return [inst.out]
  return []
}
