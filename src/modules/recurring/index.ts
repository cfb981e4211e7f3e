/** Recurring payments over VRP mandates: definitions, runs and attempts, and the payer's mandate page. */
import { defineModule } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { mandatePageRoutes } from './mandate-page.routes';
import { applyMandateOnNotification, settleRunOnPayment } from './recurring.listeners';
import { recurringRoutes } from './recurring.routes';
import { runRecurringWorker } from './recurring.worker';

export const recurringModule = defineModule({
  name: 'recurring',
  api: [recurringRoutes],
  pages: [mandatePageRoutes],
  subscriptions: [settleRunOnPayment, applyMandateOnNotification],
  workers: (deps) => [
    // Due runs and retries, attempt launches, authorization/mandate expiry, resume, revocations.
    sweepWorker(deps, 'recurring-payments', () => runRecurringWorker(deps), deps.config.workerPollMs),
  ],
});
