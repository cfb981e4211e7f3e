/** Payment schedules: instalments, each collected by a payment link. */
import { defineModule } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { moveInstalmentOnPayment } from './schedules.listeners';
import { schedulesRoutes } from './schedules.routes';
import { runSchedulesWorker } from './schedules.worker';
import { schedulePayerEmailJob } from './schedules-emails.service';

export const schedulesModule = defineModule({
  name: 'schedules',
  api: [schedulesRoutes],
  jobs: [schedulePayerEmailJob],
  subscriptions: [moveInstalmentOnPayment],
  workers: (deps) => [
    // Links at issue_at (and re-issues), overdue at grace end, intent cancels.
    sweepWorker(deps, 'payment-schedules', () => runSchedulesWorker(deps), deps.config.workerPollMs),
  ],
});
