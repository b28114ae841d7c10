/**
 * The settings' `rules_change_report` (docs/behaviour.md, "Swarm-level
 * settings"): whether a review of a PR that changes the rules or the
 * examples gets the rules-change report. Kept apart from settings.ts, which
 * reads it through {@link readReportSetting}.
 */

export const REPORT_SETTING_FIELDS = ['rules_change_report'] as const

/** On unless turned off. */
export const REPORT_SETTING_DEFAULTS: { rules_change_report: boolean } = { rules_change_report: true }

/** Reads `rules_change_report` when `fields` has it: a boolean, or a problem naming it. */
export function readReportSetting(
  fields: Record<string, unknown>,
  problems: string[],
): { rules_change_report?: boolean } {
  if (!('rules_change_report' in fields)) return {}
  const value = fields.rules_change_report
  if (typeof value === 'boolean') return { rules_change_report: value }
  problems.push(
    `rules_change_report must be true or false, not ${value === null ? 'null' : (JSON.stringify(value) ?? typeof value)}`,
  )
  return {}
}
