/**
 * Every feature module, in one list. API modules are mounted under /api/v1; page modules
 * (hosted checkout, verification pages, health) at the root.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { adminRoutes } from './admin/admin.routes';
import { customersRoutes } from './customers/customers.routes';
import { healthRoutes } from './health/health.routes';
import { opcosRoutes } from './opcos/opcos.routes';
import { projectsRoutes } from './projects/projects.routes';

export type ModulePlugin = (app: FastifyInstance, opts: { deps: Deps }) => Promise<void>;

export const apiModules: ModulePlugin[] = [opcosRoutes, projectsRoutes, customersRoutes, adminRoutes];

export const rootModules: ModulePlugin[] = [healthRoutes];
