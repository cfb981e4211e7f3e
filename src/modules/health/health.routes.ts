import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { createReadiness } from './readiness.service';

export async function healthRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  // The database check, answered from a recent result (readiness.service.ts says why).
  const readiness = createReadiness(() => deps.database.ready());
  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Liveness: the process is up',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Readiness: database reachable and migrations applied',
        description:
          '`sanctions` (when official lists are configured) details each list: its version, age, whether it is stale ' +
          '(no version yet, or not confirmed current within SVC_SANCTIONS_MAX_AGE_HOURS) and the last failed load; ' +
          '`sanctions_screening` is `unavailable` while any configured list is stale: name screening then answers 503 ' +
          '(fails closed). This does not make the node unready (every node reads the same versions from the database); ' +
          'it is reported here and in `svc_sanctions_list_age_seconds`.',
        response: {
          200: Type.Object({
            status: Type.Literal('ready'),
            database: Type.String(),
            sanctions_screening: Type.Optional(
              Type.Union([Type.Literal('available'), Type.Literal('unavailable')]),
            ),
            sanctions: Type.Optional(
              Type.Array(
                Type.Object({
                  list: Type.String(),
                  version: Type.Union([Type.String(), Type.Null()]),
                  loaded_at: Type.Union([Type.String(), Type.Null()]),
                  age_seconds: Type.Union([Type.Integer(), Type.Null()]),
                  stale: Type.Boolean(),
                  last_error: Type.Union([Type.String(), Type.Null()]),
                  retry_not_before: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                }),
              ),
            ),
          }),
          503: Type.Object({ detail: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      // SIGTERM's drain phase (docs/guides/scaling.md): out of the load balancer before the listener closes.
      if (request.server.inflight.draining)
        return reply.status(503).send({ detail: 'Not ready: shutting down' });
      const r = await readiness.check();
      if (!r.ok) return reply.status(503).send({ detail: `Not ready: ${r.reason}` });
      if (deps.providers.sanctions.lists.length === 0)
        return { status: 'ready' as const, database: deps.database.engine };
      const lists = await deps.providers.sanctions.status(deps);
      const official = lists.filter((l) => l.list !== 'sandbox');
      return {
        status: 'ready' as const,
        database: deps.database.engine,
        sanctions_screening: official.some((l) => l.stale)
          ? ('unavailable' as const)
          : ('available' as const),
        sanctions: official.map((l) => ({
          list: l.list,
          version: l.version,
          loaded_at: l.loaded_at,
          age_seconds: l.age_seconds,
          stale: l.stale,
          last_error: l.last_error,
          retry_not_before: l.retry_not_before,
        })),
      };
    },
  );
}
