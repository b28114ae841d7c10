/**
 * A word diff of two descriptions, for the attempts matrix: the longest
 * common run of words kept, the rest marked removed or added. Whitespace
 * stays with the word before it, so the text reads as written.
 */
import { h } from './dom.ts'

type Part = { kind: 'same' | 'removed' | 'added'; text: string }

function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? []
}

/** The parts of the change from `before` to `after`, in reading order. */
export function wordDiff(before: string, after: string): Part[] {
  const a = words(before)
  const b = words(after)
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      const row = lengths[i] ?? []
      row[j] =
        a[i]?.trim() === b[j]?.trim()
          ? (lengths[i + 1]?.[j + 1] ?? 0) + 1
          : Math.max(lengths[i + 1]?.[j] ?? 0, row[j + 1] ?? 0)
    }
  }
  const parts: Part[] = []
  const push = (kind: Part['kind'], text: string) => {
    const last = parts.at(-1)
    if (last?.kind === kind) last.text += text
    else parts.push({ kind, text })
  }
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i]?.trim() === b[j]?.trim()) {
      push('same', b[j] ?? '')
      i += 1
      j += 1
    } else if (j < b.length && (i >= a.length || (lengths[i]?.[j + 1] ?? 0) >= (lengths[i + 1]?.[j] ?? 0))) {
      push('added', b[j] ?? '')
      j += 1
    } else {
      push('removed', a[i] ?? '')
      i += 1
    }
  }
  return parts
}

/** The diff as text a screen reader says too: each removed and added part named. */
export function wordDiffElement(before: string, after: string): HTMLElement {
  return h(
    'span',
    { class: 'word-diff' },
    ...wordDiff(before, after).map((part) =>
      part.kind === 'same'
        ? part.text
        : h(
            part.kind === 'removed' ? 'del' : 'ins',
            {},
            h('span', { class: 'visually-hidden' }, part.kind === 'removed' ? ' removed: ' : ' added: '),
            part.text,
          ),
    ),
  )
}
