/**
 * The check of a classification's `paths` (docs/behaviour.md, "Scoping a
 * rule to its files"): a list of 1 to 20 strings of at most 200 characters,
 * each a pattern path-glob.ts can translate. A broken pattern is named, with
 * what is wrong with it, so the entry and the pattern are both in the message.
 */
import { quoteInput } from '../base/text.ts'
import { PATH_PATTERN_MAX_CHARS, PATHS_MAX_PATTERNS, PATHS_MIN_PATTERNS } from '../wire/limits.ts'
import { translatePathPattern } from './path-glob.ts'
import { describe, lengthProblem, type ProblemSink, type SourceNode } from './source-tree.ts'

/** The patterns, or null after pushing every problem found. */
export function checkPaths(node: SourceNode, problems: ProblemSink): string[] | null {
  if (node.kind !== 'list') {
    problems.push(`paths must be a list of glob patterns, got ${describe(node)}`)
    return null
  }
  if (node.items.length < PATHS_MIN_PATTERNS || node.items.length > PATHS_MAX_PATTERNS) {
    problems.push(
      `paths has ${node.items.length} patterns; it holds ${PATHS_MIN_PATTERNS} to ${PATHS_MAX_PATTERNS} (leave the key out for every file)`,
    )
    return null
  }
  const patterns: string[] = []
  let broken = false
  node.items.forEach((item, index) => {
    if (item.kind !== 'scalar' || typeof item.value !== 'string') {
      problems.push(`paths[${index}] must be a string, got ${describe(item)}`)
      broken = true
      return
    }
    const pattern = item.value
    const tooLong = lengthProblem(`paths[${index}]`, pattern, PATH_PATTERN_MAX_CHARS)
    if (tooLong !== null) {
      problems.push(tooLong)
      broken = true
      return
    }
    const translated = translatePathPattern(pattern)
    if (!translated.ok) {
      problems.push(`paths[${index}]: pattern ${quoteInput(pattern)} ${translated.error}`)
      broken = true
      return
    }
    patterns.push(pattern)
  })
  return broken ? null : patterns
}
