/**
 * `/healthz` (the process is up) and `/readyz` (every dependency answers;
 * the checks are usecases/settings/readiness.ts).
 */
import { Elysia, t } from 'elysia'
import { type ReadinessCheck, runCheck } from '../../usecases/settings/readiness.ts'

export type HealthRoutesDeps = {
  checks: ReadinessCheck[]
  /** How long one check may take before it counts as failing; default 5000 ms. */
  checkTimeoutMs?: number
}

const CheckSchema = t.Object({
  name: t.String(),
  state: t.Union([t.Literal('ok'), t.Literal('not_configured'), t.Literal('failing')]),
  reason: t.Optional(t.String()),
})

const ReadinessSchema = t.Object({
  status: t.Union([t.Literal('ready'), t.Literal('not_ready')]),
  checks: t.Array(CheckSchema),
})

export function healthRoutes(deps: HealthRoutesDeps) {
  const timeoutMs = deps.checkTimeoutMs ?? 5000
  return new Elysia({ name: 'review-classifier-health', prefix: '' })
    .get('/healthz', () => ({ status: 'ok' as const }), {
      response: { 200: t.Object({ status: t.Literal('ok') }) },
      detail: { summary: 'The process is up', tags: ['health'] },
    })
    .get(
      '/readyz',
      async ({ set }) => {
        const checks = await Promise.all(deps.checks.map((check) => runCheck(check, timeoutMs)))
        const ready = checks.every((check) => check.state === 'ok')
        set.status = ready ? 200 : 503
        return { status: ready ? ('ready' as const) : ('not_ready' as const), checks }
      },
      {
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
        detail: {
          summary:
            'Whether NATS, the forge and the secret store all answer, and the subscription token is stored while used',
          tags: ['health'],
        },
      },
    )
}
