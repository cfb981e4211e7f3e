/** Builds the Fastify instance (no listen): plugins, error handler, the modules' routes and pages. */

import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import type { Deps } from './deps';
import { modules } from './modules/index';
import { inboundNotificationRoutes } from './platform/inbound';
import { activityDenialsPlugin } from './plugins/activity-denials';
import { authPlugin } from './plugins/auth';
import { clientErrorHandler, errorHandlerPlugin, frameworkErrorHandler } from './plugins/error-handler';
import { inflightPlugin } from './plugins/inflight';
import { inputGuardPlugin, schemaController } from './plugins/input-guard';
import { lingeringClosePlugin } from './plugins/lingering-close';
import { metricsPlugin } from './plugins/metrics';
import { openapiPlugin } from './plugins/openapi';
import { requestContextPlugin } from './plugins/request-context';
import { genRequestId, requestIdPlugin } from './plugins/request-id';

export interface BuildOptions {
  /** Observe every route as it is added (the route-contract test uses this). */
  onRoute?: (route: RouteOptions) => void;
  /** Called before any plugin or route is registered, so its hooks apply to every route (test instrumentation). */
  instrument?: (app: FastifyInstance) => void;
}

export async function buildApp(deps: Deps, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log,
    genReqId: genRequestId,
    trustProxy: deps.config.trustProxy,
    bodyLimit: 1024 * 1024,
    forceCloseConnections: 'idle',
    // While closing, the error-handler plugin answers 503 in the spec's format instead.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Type coercion for query strings, path parameters and headers only, never for JSON bodies.
    ajv: { customOptions: { allErrors: true, removeAdditional: false, useDefaults: true } },
    schemaController,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  });

  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  opts.instrument?.(app);
  // JSON only: a JSON API route answers 415 to any other media type (Fastify also parses text/plain by default).
  app.removeContentTypeParser('text/plain');
  await app.register(errorHandlerPlugin);
  await app.register(inputGuardPlugin);
  await app.register(lingeringClosePlugin);
  await app.register(requestIdPlugin);
  await app.register(requestContextPlugin);
  await app.register(inflightPlugin);
  await app.register(metricsPlugin, { registry: deps.metrics });
  await app.register(openapiPlugin, { publicUrl: deps.config.publicUrl });
  await app.register(authPlugin, { deps });
  await app.register(activityDenialsPlugin, { deps });

  // Pages are the hosted HTML pages (and health) at the root: their forms post
  // application/x-www-form-urlencoded, so only they get the form parser.
  await app.register(async (pages) => {
    await pages.register(formbody);
    for (const mod of modules) for (const plugin of mod.pages ?? []) await pages.register(plugin, { deps });
  });
  await app.register(
    async (api) => {
      for (const mod of modules) for (const plugin of mod.api ?? []) await api.register(plugin, { deps });
      // Every provider's notifications, on one generic route (platform/inbound.ts).
      await api.register(inboundNotificationRoutes(modules.flatMap((mod) => mod.inbound ?? [])), { deps });
    },
    { prefix: '/api/v1' },
  );
  return app;
}
