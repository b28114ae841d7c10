/**
 * The pages' contrast check (WCAG AA), as a script to evaluate in the page:
 * shared by the page tests that look at each page in light and dark.
 */
/**
 * Every piece of text in the page whose colour contrast with what it sits on is under WCAG AA
 * (4.5:1, or 3:1 for large text), as "ratio selector: text". Backgrounds are read up the
 * ancestors, a translucent one blended over the one under it.
 */
export const LOW_CONTRAST = `(() => {
  const parse = (value) => {
    const m = /rgba?\\(([\\d.]+),?\\s*([\\d.]+),?\\s*([\\d.]+)(?:,?\\s*\\/?\\s*([\\d.]+))?\\)/.exec(value)
    return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])]
  }
  const blend = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1)
  const background = (element) => {
    const layers = []
    for (let node = element; node !== null; node = node.parentElement) {
      const colour = parse(getComputedStyle(node).backgroundColor)
      if (colour !== null && colour[3] > 0) layers.push(colour)
      if (colour !== null && colour[3] === 1) break
    }
    let result = [255, 255, 255, 1]
    for (const layer of layers.reverse()) result = blend(layer, result)
    return result
  }
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const failures = []
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
  for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
    const element = text.parentElement
    if (element === null || text.textContent.trim() === '') continue
    if (element.closest('[hidden], .visually-hidden, noscript, option, datalist, script') !== null) continue
    const rect = element.getBoundingClientRect()
    if (rect.width === 0 || rect.height === 0) continue
    const style = getComputedStyle(element)
    if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue
    const fg = parse(style.color)
    if (fg === null) continue
    const bg = background(element)
    const colour = blend(fg, bg)
    const [a, b] = [luminance(colour), luminance(bg)].sort((x, y) => y - x)
    const ratio = (a + 0.05) / (b + 0.05)
    const size = parseFloat(style.fontSize)
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700)
    if (ratio < (large ? 3 : 4.5)) {
      failures.push(ratio.toFixed(2) + ' ' + element.tagName.toLowerCase() + '.' + element.className + ': ' + text.textContent.trim().slice(0, 40))
    }
  }
  return [...new Set(failures)]
})()`
