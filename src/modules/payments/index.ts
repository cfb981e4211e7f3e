/**
 * Payments: payment links and transactions, the payment network's signed notifications and hints.
 * Emits `payments.status_changed` and `payments.mandate_notification` (status-events.ts).
 */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { bankNotificationRoutes } from './bank-notifications.routes';
import { paymentsRoutes } from './payments.routes';
import { expireDuePayments } from './payments.service';
import { createTokenioWorker } from './tokenio.worker';
import { tokenioWebhookRoutes } from './tokenio-hints.routes';
import { compactTransactionCounts } from './transaction-counts';

export const paymentsModule = defineModule({
  name: 'payments',
  api: [paymentsRoutes, bankNotificationRoutes, tokenioWebhookRoutes],
  workers: (deps) => {
    // Token.io (SVC_BANK_PROVIDER=tokenio): payment reconciliation, Sub-TPP reviews, pending VRP consents.
    const tokenio = createTokenioWorker(deps);
    return [
      ...(tokenio ? [tokenio] : []),
      // Pending payment links past expires_at become expired (claimed with FOR UPDATE SKIP LOCKED, in batches).
      loopWorker(
        'payment-expiry-sweeper',
        Math.max(deps.config.workerPollMs, 1000),
        () => expireDuePayments(deps, 100),
        deps.log,
      ),
      // Folds the transaction count deltas (GET /transactions totals); returns 0 so it polls, never spins.
      loopWorker(
        'transaction-count-compactor',
        deps.config.workerPollMs,
        async () => {
          await compactTransactionCounts(deps.db);
          return 0;
        },
        deps.log,
      ),
    ];
  },
});
