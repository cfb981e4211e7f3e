/** Builds the Fastify instance (no listen): plugins, error handler, modules. */
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import type { Deps } from './deps';
import { apiModules, rootModules } from './modules/index';
import { authPlugin } from './plugins/auth';
import { errorHandlerPlugin } from './plugins/error-handler';
import { inflightPlugin } from './plugins/inflight';
import { metricsPlugin } from './plugins/metrics';
import { openapiPlugin } from './plugins/openapi';
import { requestContextPlugin } from './plugins/request-context';
import { genRequestId, requestIdPlugin } from './plugins/request-id';

export interface BuildOptions {
  /** Observe every route as it is added (the route-contract test uses this). */
  onRoute?: (route: RouteOptions) => void;
}

export async function buildApp(deps: Deps, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log,
    genReqId: genRequestId,
    trustProxy: deps.config.trustProxy,
    bodyLimit: 1024 * 1024,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: {
      customOptions: { allErrors: true, removeAdditional: false, coerceTypes: 'array', useDefaults: true },
    },
  });

  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  await app.register(errorHandlerPlugin);
  await app.register(requestIdPlugin);
  await app.register(requestContextPlugin);
  await app.register(inflightPlugin);
  await app.register(metricsPlugin);
  await app.register(openapiPlugin, { publicUrl: deps.config.publicUrl });
  await app.register(authPlugin, { deps });
  // HTML forms of the hosted pages post application/x-www-form-urlencoded.
  await app.register(formbody);

  for (const mod of rootModules) await app.register(mod, { deps });
  await app.register(
    async (api) => {
      for (const mod of apiModules) await api.register(mod, { deps });
    },
    { prefix: '/api/v1' },
  );
  return app;
}
