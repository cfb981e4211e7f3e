/**
 * Every feature module, in one list. API modules are mounted under /api/v1; page modules
 * (hosted checkout, verification pages, health) at the root.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { healthRoutes } from './health/health.routes';
import { webhooksRoutes } from './webhooks/webhooks.routes';

export type ModulePlugin = (app: FastifyInstance, opts: { deps: Deps }) => Promise<void>;

export const apiModules: ModulePlugin[] = [webhooksRoutes];

export const rootModules: ModulePlugin[] = [healthRoutes];
