/**
 * A function is one thing (issue 30, "Functions that are one thing"): none
 * spans more than 200 lines with the functions nested in it, and none has more
 * than 80 lines of its own (its nested functions' lines left out). A factory
 * whose closures grow past that is holding a second thing: move the closures
 * it doesn't need to share into named functions rather than raise a bound.
 * Production TypeScript only, as for the file-size test: a suite's `describe`
 * callback is many small cases side by side.
 */
import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { ROOT, sourceFiles } from './support/source-files.ts'

const SOURCE_DIRS = ['core', 'ports', 'adapters', 'entrypoints', 'ui']
const MAX_SPAN_LINES = 200
const MAX_OWN_LINES = 80

/** One function's size: its whole span, and the lines that are its own. */
interface FunctionSize {
  name: string
  line: number
  span: number
  own: number
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  )
}

/** What a reader would call the function: its own name, or the variable or property it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  if (node.name) return node.name.getText(source)
  const parent = node.parent
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(source)
  }
  return '(anonymous)'
}

/** Every function in `text`, with its span and own lines as an editor numbers them (comments before it aside). */
function functionSizes(fileName: string, text: string): FunctionSize[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line
  const spanOf = (node: ts.Node) => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1
  const sizes: FunctionSize[] = []
  const nestedSpan = (node: ts.Node): number => {
    let total = 0
    ts.forEachChild(node, (child) => {
      total += isFunction(child) ? spanOf(child) : nestedSpan(child)
    })
    return total
  }
  const visit = (node: ts.Node) => {
    if (isFunction(node)) {
      const span = spanOf(node)
      sizes.push({
        name: functionName(node, source),
        line: lineOf(node.getStart(source)) + 1,
        span,
        own: span - nestedSpan(node),
      })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return sizes
}

/** The functions in `text` over either bound. */
function oversized(fileName: string, text: string): FunctionSize[] {
  return functionSizes(fileName, text).filter(({ span, own }) => span > MAX_SPAN_LINES || own > MAX_OWN_LINES)
}

/** A function `name` whose body is `ownLines` statements and, nested in it, one arrow function per entry of `nested`, of that many statements. */
function syntheticFunction(name: string, ownLines: number, nested: number[] = []): string {
  const statements = (count: number, indent: string) =>
    Array.from({ length: count }, (_, index) => `${indent}const v${index} = ${index}\n`).join('')
  const inner = nested.map((count, index) => `  const inner${index} = () => {\n${statements(count, '    ')}  }\n`)
  return `function ${name}() {\n${statements(ownLines, '  ')}${inner.join('')}}\n`
}

describe('functions', () => {
  it('counts a function whole, and its own lines without the functions nested in it', () => {
    // 1 opening line + 10 statements + a nested arrow of 5 statements (7 lines) + 1 closing line.
    const [outer, inner] = functionSizes('x.ts', syntheticFunction('outer', 10, [5]))
    expect(outer).toEqual({ name: 'outer', line: 1, span: 19, own: 12 })
    expect(inner).toEqual({ name: 'inner0', line: 12, span: 7, own: 7 })
  })

  it('counts every kind of function: method, constructor, accessors, expression', () => {
    const text = [
      'class A {',
      '  constructor() {}',
      '  get x() { return 1 }',
      '  set x(v: number) {}',
      '  m() {',
      '  }',
      '}',
      'const f = function () {}',
      'const o = { p: () => 1 }',
    ].join('\n')
    expect(functionSizes('x.ts', text).map(({ name, span }) => `${name} ${span}`)).toEqual([
      'constructor 1',
      'x 1',
      'x 1',
      'm 2',
      'f 1',
      'p 1',
    ])
  })

  it('finds a function too long of its own, and one too long with its nested functions', () => {
    const namesOver = (text: string) => oversized('x.ts', text).map(({ name }) => name)
    // Own lines: the two braces and 78 statements; span: those and two nested functions of 60 lines each.
    expect(namesOver(syntheticFunction('fits', MAX_OWN_LINES - 2, [58, 58]))).toEqual([])
    expect(namesOver(syntheticFunction('ownTooLong', MAX_OWN_LINES - 1))).toEqual(['ownTooLong'])
    expect(namesOver(syntheticFunction('spanTooLong', 10, [70, 70, 70]))).toEqual(['spanTooLong'])
  })

  it(`span at most ${MAX_SPAN_LINES} lines and have at most ${MAX_OWN_LINES} of their own, tests aside`, () => {
    const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(dir)).filter(
      (path) => !path.endsWith('.d.ts') && !path.endsWith('.test.ts'),
    )
    // The walk finds the tree, so an empty list can't pass this by accident.
    expect(files).toContain(join('core', 'wire', 'schemas.ts'))
    expect(files).toContain(join('ui', 'editor.ts'))
    const over = files.flatMap((path) =>
      oversized(path, readFileSync(join(ROOT, path), 'utf8')).map(({ name, span, own }) => ({
        key: `${path.split('\\').join('/')} ${name}`,
        size: { span, own },
      })),
    )
    expect(over.map(({ key, size }) => `${key}: spans ${size.span}, ${size.own} of its own`)).toEqual([])
  })
})
