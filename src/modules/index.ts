/**
 * Every feature module, in one list. API modules are mounted under /api/v1; page modules
 * (hosted checkout, verification pages, health) at the root.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { sandboxBankRoutes } from '../providers/bank/simulator.routes';
import { checkoutRoutes } from './checkout/checkout.routes';
import { healthRoutes } from './health/health.routes';
import { bankNotificationRoutes } from './payments/bank-notifications.routes';
import { paymentsRoutes } from './payments/payments.routes';

export type ModulePlugin = (app: FastifyInstance, opts: { deps: Deps }) => Promise<void>;

export const apiModules: ModulePlugin[] = [paymentsRoutes, bankNotificationRoutes];

export const rootModules: ModulePlugin[] = [healthRoutes, checkoutRoutes, sandboxBankRoutes];
