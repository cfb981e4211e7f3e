import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';

export async function healthRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
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
        response: {
          200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }),
          503: Type.Object({ detail: Type.String() }),
        },
      },
    },
    async (_request, reply) => {
      const r = await deps.database.ready();
      if (!r.ok) return reply.status(503).send({ detail: `Not ready: ${r.reason}` });
      return { status: 'ready' as const, database: deps.database.engine };
    },
  );
}
