/**
 * Denied requests in the activity log (docs/guides/activity-logs.md): every 403 answered to an
 * authenticated client (a missing permission, a dashboard-only route called with an API token, a
 * disabled area) appends a `permission.denied` entry with outcome `failure`, written on its own
 * since the request changed nothing. Its path is the route pattern (`/projects/:project_id`).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Deps } from '../deps';
import { recordActivity } from '../modules/activity/activity-writer.service';
import { AppError } from '../shared/errors';

export const activityDenialsPlugin = fp(
  async (app: FastifyInstance, opts: { deps: Deps }) => {
    const { deps } = opts;
    app.addHook('onError', async (request, _reply, error) => {
      const auth = request.clientAuth;
      if (!auth || !(error instanceof AppError) || error.statusCode !== 403) return;
      try {
        await recordActivity(deps.db, {
          clientId: auth.clientId,
          action: 'permission.denied',
          outcome: 'failure',
          at: deps.clock.now(),
          target: { type: 'route', id: `${request.method} ${request.routeOptions.url ?? ''}`, label: null },
          metadata: {
            reason: error.message,
            permission: request.routeOptions.config?.permission ?? null,
          },
          request,
          // The pattern, never the ids the caller sent: a denial must not record what it refused to touch.
          routePatternOnly: true,
        });
      } catch (err) {
        request.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'denial not logged');
      }
    });
  },
  { name: 'activity-denials', dependencies: ['auth'] },
);
