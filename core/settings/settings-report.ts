/**
 * The settings' two switches about what a review reports and who may
 * answer it (docs/behaviour.md, "Swarm-level settings"):
 * `rules_change_report`, whether a review of a PR that changes the rules or
 * the examples gets the rules-change report, and `waivers_by_author`,
 * whether a PR's own author may waive a failing rule on it. Kept apart from
 * settings.ts, which reads them through {@link readReportSetting}.
 */

export const REPORT_SETTING_FIELDS = ['rules_change_report', 'waivers_by_author'] as const

type Switches = { rules_change_report: boolean; waivers_by_author: boolean }

/** The report on unless turned off; an author's waiver off unless turned on. */
export const REPORT_SETTING_DEFAULTS: Switches = { rules_change_report: true, waivers_by_author: false }

/** Reads each switch `fields` has: a boolean, or a problem naming it. */
export function readReportSetting(fields: Record<string, unknown>, problems: string[]): Partial<Switches> {
  const read: Partial<Switches> = {}
  for (const field of REPORT_SETTING_FIELDS) {
    if (!(field in fields)) continue
    const value = fields[field]
    if (typeof value === 'boolean') read[field] = value
    else
      problems.push(
        `${field} must be true or false, not ${value === null ? 'null' : (JSON.stringify(value) ?? typeof value)}`,
      )
  }
  return read
}
