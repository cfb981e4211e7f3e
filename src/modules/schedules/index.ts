/** Payment schedules: instalments, each collected by a payment link. */
import { defineModule } from '../../platform/module';
import { scheduleTimers } from './schedules.jobs';
import { moveInstalmentOnPayment } from './schedules.listeners';
import { schedulesRoutes } from './schedules.routes';
import { schedulePayerEmailJob } from './schedules-emails.service';

export const schedulesModule = defineModule({
  name: 'schedules',
  api: [schedulesRoutes],
  jobs: [schedulePayerEmailJob],
  // Links at issue_at (and re-issues), overdue at grace end, pending links canceled: timers.
  timers: scheduleTimers,
  subscriptions: [moveInstalmentOnPayment],
});
