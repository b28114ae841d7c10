/**
 * The YAML form of the rules file and of the examples file read into one
 * small source tree, so each file's rules are checked once (in
 * rules-check.ts, examples-check.ts) with the same messages whatever the
 * format. Structural problems (syntax, anchors, tags, duplicate keys,
 * several documents, the limits) are reported here, and in rules-json.ts for
 * JSON, in the same words for both kinds of file.
 */

import type { DocumentOptions, Node, ParseOptions, SchemaOptions } from 'yaml'
import { CST, isAlias, isMap, isNode, isPair, isScalar, isSeq, Lexer, LineCounter, parseAllDocuments } from 'yaml'
import { err, ok, type Result } from '../base/result.ts'
import { capText, QUOTED_MAX_CHARS } from '../base/text.ts'
import { MAX_CLASSIFICATIONS } from '../wire/limits.ts'
import { CLASSIFICATION_KEYS, REQUIRED_CLASSIFICATION_KEYS } from './rules-check.ts'
import {
  cappedProblem,
  emptyFileDetail,
  type FileProblem,
  INSPECTED_DEPTH,
  itemsDetail,
  type SourceKind,
  type SourceNode,
  tokensDetail,
} from './source-tree.ts'

/**
 * The most keys and list entries a file may hold, counted before it is read
 * any further. A rules file holds 51 (one key, ten entries of four keys); the
 * slack lets a file of a few dozen entries still hear that it has too many.
 */
export const RULES_MAX_ITEMS = 500
/**
 * The most YAML tokens (scalars, indicators, anchors, comments, line breaks,
 * spaces) a file may hold. Reading YAML costs per token, so this bounds the
 * work whatever the file is made of; a rules file needs a few hundred, a
 * long commented one a few thousand.
 */
export const RULES_MAX_YAML_TOKENS = 10_000
/** Flow collections (`[`, `{`) nested deeper are refused before composing, which recurses once per level. */
const YAML_MAX_FLOW_DEPTH = 64

/** The rules file as the readers name and bound it. */
export const RULES_SOURCE: SourceKind = {
  one: 'a rules file',
  many: 'rules files',
  key: 'classifications',
  maxItems: RULES_MAX_ITEMS,
  itemsHint: `a rules file holds one key and a list of at most ${MAX_CLASSIFICATIONS} entries of ${REQUIRED_CLASSIFICATION_KEYS.length} to ${CLASSIFICATION_KEYS.length} keys`,
  maxYamlTokens: RULES_MAX_YAML_TOKENS,
  tokensHint: 'a rules file needs a few hundred',
}

const DEPTH_DETAIL = 'the file nests too deeply to read'

/** The line starts of `text` up to `end`, for {@link position}. */
export function lineStarts(text: string, end = text.length): LineCounter {
  const lines = new LineCounter()
  lines.addNewLine(0)
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1)
  return lines
}

export function position(lines: LineCounter, offset: number): string {
  const { line, col } = lines.linePos(offset)
  return `line ${line}, column ${col}`
}

function shortTag(tag: string): string {
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag
}

/**
 * YAML 1.2 core schema, so `yes` is a string and `0120` is 120; `compat`
 * flags plain scalars a YAML 1.1 reader would take otherwise, and makes the
 * writer quote such strings, so written files read back the same.
 */
export const RULES_YAML_OPTIONS = {
  version: '1.2',
  schema: 'core',
  // The library's own check compares each key with every earlier one of its
  // map, quadratic in the keys; readYamlSource checks with a Map instead.
  uniqueKeys: false,
  merge: false,
  prettyErrors: false,
  compat: 'yaml-1.1',
} as const satisfies DocumentOptions & SchemaOptions & ParseOptions

const COMPAT_WARNING = /may be parsed as either !!(\w+) or !!(\w+)/
const YAML_11_TYPE_NAMES: Partial<Record<string, string>> = {
  bool: 'a boolean',
  int: 'a number',
  float: 'a number',
  null: 'null',
  timestamp: 'a date',
}

/**
 * One pass of the YAML lexer, stopping at the first limit the file passes:
 * the kind's most tokens, its most items, or {@link YAML_MAX_FLOW_DEPTH}. Linear in what it reads, and it reads at most
 * the tokens the limit allows, so a hostile file costs no more than a
 * large honest one. Answers the offset and the limit's words, or null.
 *
 * Items: outside flow collections each `-`, `?` and `:` indicator is one
 * (an explicit `? key` with its `: value` counts twice); inside one, each
 * item is counted where its first token is.
 */
function yamlOverLimit(text: string, kind: SourceKind): { offset: number; detail: string } | null {
  let offset = 0
  let tokens = 0
  let items = 0
  let scalarNext = false
  // Per open flow collection: whether its next token starts an item.
  const flow: boolean[] = []
  for (const token of new Lexer().lex(text)) {
    const at = offset
    // The lexer's control tokens mark what follows and take no room in the text.
    if (token === '\x02' || token === '\x18' || token === '\x1f') {
      if (token === '\x18') flow.length = 0
      if (token === '\x1f') scalarNext = true
      continue
    }
    offset += token.length
    tokens += 1
    if (tokens > kind.maxYamlTokens) return { offset: at, detail: tokensDetail(kind) }
    // A scalar's text follows its marker, and may look like anything.
    const type = scalarNext ? 'scalar' : CST.tokenType(token)
    scalarNext = false
    const blank = type === 'space' || type === 'newline' || type === 'comment'
    if (flow.length > 0) {
      const top = flow.length - 1
      if (type === 'comma') flow[top] = true
      else if (type === 'flow-seq-end' || type === 'flow-map-end') flow.pop()
      else if (!blank && flow[top] === true) {
        flow[top] = false
        items += 1
      }
    } else if (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind') {
      items += 1
    }
    if (items > kind.maxItems) return { offset: at, detail: itemsDetail(kind) }
    if (type === 'flow-seq-start' || type === 'flow-map-start') {
      flow.push(true)
      if (flow.length > YAML_MAX_FLOW_DEPTH) return { offset: at, detail: DEPTH_DETAIL }
    }
  }
  return null
}

/**
 * Every node under `root` in document order (a key before its value), with
 * a stack of its own: the library's `visit` copies the path at each node,
 * which costs the depth times the nodes.
 */
function eachNode(root: unknown, see: (node: Node) => void): void {
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const next = stack.pop()
    if (isPair(next)) {
      stack.push(next.value, next.key)
      continue
    }
    if (!isNode(next)) continue
    see(next)
    if (isMap(next) || isSeq(next)) for (let i = next.items.length - 1; i >= 0; i -= 1) stack.push(next.items[i])
  }
}

/** Where a map repeats a key: the library's own check is quadratic in a map's keys, this one linear. */
function duplicateKeyOffsets(node: Node): number[] {
  if (!isMap(node)) return []
  const offsets: number[] = []
  const seen = new Set<unknown>()
  for (const { key } of node.items) {
    // As the library compares them: a scalar key by its value (NaN never equal), any other key is unlike every other.
    if (!isScalar(key) || Number.isNaN(key.value)) continue
    if (seen.has(key.value)) offsets.push(key.range?.[0] ?? 0)
    else seen.add(key.value)
  }
  return offsets
}

/**
 * Parses YAML 1.2 (core schema) and refuses what would make a file mean
 * different things to different readers; `kind` names the file in messages
 * and bounds what is read of it.
 */
export function readYamlSource(path: string, text: string, kind: SourceKind): Result<SourceNode, FileProblem[]> {
  const lines = new LineCounter()
  const over = yamlOverLimit(text, kind)
  if (over !== null)
    return err([{ file: path, at: position(lineStarts(text, over.offset), over.offset), detail: over.detail }])
  const docs = parseAllDocuments(text, { ...RULES_YAML_OPTIONS, lineCounter: lines })
  const [doc, second] = docs
  if (doc === undefined) return err([{ file: path, at: null, detail: emptyFileDetail(kind) }])
  if (second !== undefined) {
    const at = second.range[0]
    return err([
      {
        file: path,
        at: position(lines, at),
        detail: `the file holds ${docs.length} YAML documents; ${kind.one} is one document`,
      },
    ])
  }
  const [firstError] = doc.errors
  const duplicates: { offset: number; detail: string }[] = []
  eachNode(doc.contents, (node) => {
    for (const offset of duplicateKeyOffsets(node)) duplicates.push({ offset, detail: 'Map keys must be unique' })
  })
  if (firstError !== undefined || duplicates.length > 0) {
    // The composer turns its own crashes into errors with a JS engine
    // message: a stack overflow on deep nesting (once per level it unwinds),
    // and an extra RESOURCE_EXHAUSTION after a real syntax error.
    if (firstError !== undefined && doc.errors.some((error) => /call stack/i.test(error.message))) {
      return err([{ file: path, at: position(lines, firstError.pos[0]), detail: DEPTH_DETAIL }])
    }
    const real = doc.errors.filter((error) => error.code !== 'RESOURCE_EXHAUSTION')
    const found = [
      ...(real.length > 0 ? real : doc.errors).map((error) => ({ offset: error.pos[0], detail: error.message })),
      ...duplicates,
    ]
    // In file order, as the library reported its own duplicate keys among its other errors.
    found.sort((a, b) => a.offset - b.offset)
    return err(found.map(({ offset, detail }) => cappedProblem({ file: path, at: position(lines, offset), detail })))
  }
  const problems: FileProblem[] = []
  if (doc.directives.yaml.explicit && doc.directives.yaml.version !== '1.2') {
    problems.push({
      file: path,
      at: 'line 1',
      detail: `the %YAML ${doc.directives.yaml.version} directive is not allowed; ${kind.many} are read as YAML 1.2`,
    })
  }
  eachNode(doc.contents, (node) => {
    if (isAlias(node)) {
      problems.push({
        file: path,
        at: position(lines, node.range?.[0] ?? 0),
        detail: `the alias *${capText(node.source, QUOTED_MAX_CHARS)} is not allowed; write the value out`,
      })
      return
    }
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) return
    const start = node.range?.[0] ?? 0
    const at = position(lines, start)
    if (node.anchor !== undefined) {
      // The node starts after its anchor; point at the anchor itself.
      const anchorAt = text.lastIndexOf(`&${node.anchor}`, start)
      problems.push({
        file: path,
        at: position(lines, anchorAt === -1 ? start : anchorAt),
        detail: `the anchor &${capText(node.anchor, QUOTED_MAX_CHARS)} is not allowed; ${kind.many} use no anchors or aliases`,
      })
    }
    if (node.tag !== undefined) {
      const tag = capText(shortTag(node.tag), QUOTED_MAX_CHARS)
      problems.push({ file: path, at, detail: `the tag ${tag} is not allowed; ${kind.many} use no tags` })
    }
  })
  if (problems.length > 0) return err(problems)

  const alsoReadAs = new Map<number, string>()
  for (const warning of doc.warnings) {
    const types = COMPAT_WARNING.exec(warning.message)
    if (types === null) continue
    const other = types[1] === 'str' ? types[2] : types[1]
    alsoReadAs.set(warning.pos[0], YAML_11_TYPE_NAMES[other ?? ''] ?? `!!${other ?? '?'}`)
  }
  return ok(fromYamlNode(doc.contents, alsoReadAs, 0))
}

function fromYamlNode(node: unknown, alsoReadAs: ReadonlyMap<number, string>, depth: number): SourceNode {
  if (isMap(node)) {
    if (depth >= INSPECTED_DEPTH) return { kind: 'map', entries: [] }
    return {
      kind: 'map',
      entries: node.items.map((pair) => ({
        key: fromYamlNode(pair.key, alsoReadAs, depth + 1),
        value: fromYamlNode(pair.value, alsoReadAs, depth + 1),
      })),
    }
  }
  if (isSeq(node)) {
    if (depth >= INSPECTED_DEPTH) return { kind: 'list', items: [] }
    return { kind: 'list', items: node.items.map((item) => fromYamlNode(item, alsoReadAs, depth + 1)) }
  }
  if (isScalar(node)) {
    const plain = node.type === 'PLAIN' || node.type === undefined
    return {
      kind: 'scalar',
      value: node.value,
      text: node.source ?? String(node.value),
      alsoReadAs: plain ? (alsoReadAs.get(node.range?.[0] ?? -1) ?? null) : null,
    }
  }
  // A missing value (`name:` with nothing after it) has no node at all.
  return { kind: 'scalar', value: null, text: '', alsoReadAs: null }
}
