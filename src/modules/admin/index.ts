/** Staff administration: clients, opco reviews, platform settings; the bootstrap staff account at start. */
import { defineModule } from '../../platform/module';
import { adminRoutes } from './admin.routes';
import { ensureBootstrapStaff } from './staff.service';

export const adminModule = defineModule({
  name: 'admin',
  api: [adminRoutes],
  startup: [ensureBootstrapStaff],
});
