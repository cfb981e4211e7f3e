/** Payment schedules: instalments, each collected by a payment link. */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { moveInstalmentOnPayment } from './schedules.listeners';
import { schedulesRoutes } from './schedules.routes';
import { runSchedulesWorker } from './schedules.worker';

export const schedulesModule = defineModule({
  name: 'schedules',
  api: [schedulesRoutes],
  subscriptions: [moveInstalmentOnPayment],
  workers: (deps) => [
    // Links at issue_at (and re-issues), overdue at grace end, intent cancels, payer emails.
    loopWorker('payment-schedules', deps.config.workerPollMs, () => runSchedulesWorker(deps), deps.log),
  ],
});
