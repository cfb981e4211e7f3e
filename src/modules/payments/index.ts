/**
 * Payments: payment links and transactions, the payment network's signed notifications and hints.
 * Emits `payments.status_changed` and `payments.mandate_notification` (status-events.ts).
 */
import { defineModule } from '../../platform/module';
import { quiet, sweepWorker } from '../../workers/loop';
import { bankNotificationRoutes } from './bank-notifications.routes';
import { paymentsRoutes } from './payments.routes';
import { paymentLinkExpiryTimer } from './payments.service';
import { eraseLapsedRefundAccounts } from './refund-account-retention';
import { createTokenioWorker } from './tokenio.worker';
import { tokenioWebhookRoutes } from './tokenio-hints.routes';
import { compactTransactionCounts } from './transaction-counts';

export const paymentsModule = defineModule({
  name: 'payments',
  api: [paymentsRoutes, bankNotificationRoutes, tokenioWebhookRoutes],
  // Payment links past expires_at: pending ones expire, processing ones are read from the network.
  timers: [paymentLinkExpiryTimer],
  workers: (deps) => {
    // Token.io (SVC_BANK_PROVIDER=tokenio): payment reconciliation, Sub-TPP reviews, pending VRP consents.
    const tokenio = createTokenioWorker(deps);
    const retentionDays = deps.config.tokenio?.refunds.retentionDays;
    return [
      ...(tokenio ? [tokenio] : []),
      // The payer's sealed refund account is erased after SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS (in batches).
      ...(retentionDays
        ? [
            sweepWorker(deps, 'refund-account-retention', () =>
              eraseLapsedRefundAccounts(deps, retentionDays),
            ),
          ]
        : []),
      // Folds the transaction count deltas (GET /transactions totals).
      sweepWorker(
        deps,
        'transaction-count-compactor',
        quiet(() => compactTransactionCounts(deps.db)),
        deps.config.workerPollMs,
      ),
    ];
  },
});
