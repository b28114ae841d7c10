/**
 * The rules file as the open-a-PR preview writes it: the merge by name the
 * controller makes (core/repo-files/rules-merge.ts) and YAML for the result. No DOM and
 * no YAML library in here (the library would double the page's bundle), so
 * it is tested outside a browser against the rules file's own parser.
 */
import type { Classification } from '../core/wire/types.ts'

/** core/repo-files/rules-file.ts's RULES_YML_PATH (test/ui/href.test.ts checks they agree). */
export const NEW_RULES_PATH = '.hyperhive/review-classifier.yml'

/** A YAML scalar: plain when it reads back as the same string, else double-quoted (JSON's quoting is YAML's). */
function scalar(text: string): string {
  const plain =
    /^[A-Za-z0-9(][^\n#:]*$/.test(text) &&
    !/\s$/.test(text) &&
    !/^(true|false|yes|no|on|off|null|~|-?\d[\d._]*([eE][-+]?\d+)?)$/i.test(text)
  return plain ? text : JSON.stringify(text)
}

/** The rules file's YAML for `classifications`, keys in the file's order. */
export function rulesYaml(classifications: readonly Classification[]): string {
  const lines = ['classifications:']
  for (const entry of classifications) {
    lines.push(`  - name: ${scalar(entry.name)}`)
    lines.push(`    description: ${scalar(entry.description)}`)
    lines.push(`    threshold: ${entry.threshold}`)
    lines.push(`    polarity: ${entry.polarity}`)
    // A flow list of JSON strings is YAML too, and reads back as the same patterns.
    if (entry.paths !== undefined)
      lines.push(`    paths: [${entry.paths.map((path) => JSON.stringify(path)).join(', ')}]`)
    if (entry.mode !== undefined) lines.push(`    mode: ${entry.mode}`)
  }
  return `${lines.join('\n')}\n`
}

/** The rule's key as the merge compares it (rules-merge.ts's sameClassification): a mode left out is blocking. */
export function ruleKey(rule: Classification): string {
  const { name, description, threshold, polarity, paths, mode } = rule
  return JSON.stringify([name, description, threshold, polarity, paths ?? null, mode ?? 'blocking'])
}

/** The file's classifications after the merge by name, and which names it adds or changes. */
export function mergeByName(
  existing: readonly Classification[],
  additions: readonly Classification[],
): { merged: Classification[]; added: string[]; changed: string[] } {
  const merged = [...existing]
  const added: string[] = []
  const changed: string[] = []
  for (const addition of additions) {
    const index = merged.findIndex((entry) => entry.name === addition.name)
    const current = merged[index]
    if (current === undefined) {
      merged.push(addition)
      added.push(addition.name)
    } else if (ruleKey(current) !== ruleKey(addition)) {
      merged[index] = addition
      changed.push(addition.name)
    }
  }
  return { merged, added, changed }
}
