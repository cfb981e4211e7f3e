/** The merchant dashboard's single-page app (static files at the root). */
import { defineModule } from '../../platform/module';
import { dashboardRoutes } from './dashboard.routes';

export const dashboardModule = defineModule({ name: 'dashboard', pages: [dashboardRoutes] });
