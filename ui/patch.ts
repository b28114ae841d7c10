/**
 * Patching a part of the page to a freshly built one instead of replacing
 * it: nodes of the same kind stay in place (their text and attributes
 * brought up to date), so the focus, a caret, an expanded `details` and a
 * screen reader's place survive a refresh. Listeners stay those of the
 * node kept: the pages build both trees from the same closures.
 */

/** Attributes the person sets, which a rebuilt tree knows nothing of. */
const KEPT_BY_PERSON: Record<string, readonly string[]> = { DETAILS: ['open'] }

function sameKind(a: Node, b: Node): boolean {
  if (a.nodeType !== b.nodeType) return false
  if (!(a instanceof Element) || !(b instanceof Element)) return true
  // A keyed node (a row of a rule, a column of an attempt) only ever stands for itself.
  return a.tagName === b.tagName && a.getAttribute('data-key') === b.getAttribute('data-key')
}

function patchAttributes(kept: Element, fresh: Element): void {
  const personal = KEPT_BY_PERSON[kept.tagName] ?? []
  for (const { name } of [...kept.attributes]) {
    if (!fresh.hasAttribute(name) && !personal.includes(name)) kept.removeAttribute(name)
  }
  for (const { name, value } of [...fresh.attributes]) {
    if (personal.includes(name)) continue
    if (kept.getAttribute(name) !== value) kept.setAttribute(name, value)
  }
}

/** Makes `kept`'s children those of `fresh`, keeping every node that can stay. */
export function patchChildren(kept: Node, fresh: Node): void {
  const wanted = [...fresh.childNodes]
  let index = 0
  for (const node of wanted) {
    const current = kept.childNodes[index] ?? null
    if (current !== null && sameKind(current, node)) {
      patchNode(current, node)
    } else {
      kept.insertBefore(node, current)
    }
    index += 1
  }
  while (kept.childNodes.length > wanted.length) kept.lastChild?.remove()
}

function patchNode(kept: Node, fresh: Node): void {
  if (kept instanceof Element && fresh instanceof Element) {
    patchAttributes(kept, fresh)
    patchChildren(kept, fresh)
  } else if (kept.nodeValue !== fresh.nodeValue) {
    kept.nodeValue = fresh.nodeValue
  }
}
