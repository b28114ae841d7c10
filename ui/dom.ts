/**
 * Building the pages' DOM with text by construction: every string a caller
 * passes becomes a text node or an attribute value, never markup. There is
 * no `innerHTML` anywhere in the client; a link only takes an http(s) URL or
 * a path of this site.
 */
import { isSafeHref } from './href.ts'

export type Child = Node | string | number | null | undefined | false
type Listener = (event: Event) => void
export type Props = {
  class?: string | undefined
  on?: Record<string, Listener>
  [attribute: string]: string | number | boolean | null | undefined | Record<string, Listener>
}

/** An element with its attributes (`true` sets an empty one, `false`/null/undefined none), listeners and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (name === 'on' && typeof value === 'object' && value !== null) {
      for (const [event, listener] of Object.entries(value)) element.addEventListener(event, listener)
      continue
    }
    if (value === undefined || value === null || value === false || typeof value === 'object') continue
    if (name === 'href' && !isSafeHref(String(value))) continue
    element.setAttribute(name, value === true ? '' : String(value))
  }
  append(element, ...children)
  return element
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    )
  }
}

/** Replaces every child of `parent`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild !== null) parent.removeChild(parent.firstChild)
  append(parent, ...children)
}

/** A link to another site: opens in a new tab and tells that site nothing of this one. */
export function external(url: string, ...children: Child[]): HTMLElement {
  if (!isSafeHref(url)) return h('span', {}, ...children)
  return h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, ...children)
}

let nextId = 0
/** An id unique in the page, for tying labels, hints and errors to their controls. */
export function uid(prefix: string): string {
  nextId += 1
  return `${prefix}-${nextId}`
}
