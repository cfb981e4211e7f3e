/** Health: liveness and readiness (/healthz, /readyz) at the root. */
import { defineModule } from '../../platform/module';
import { healthRoutes } from './health.routes';

export const healthModule = defineModule({ name: 'health', pages: [healthRoutes] });
