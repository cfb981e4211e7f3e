/**
 * Payments: payment links and transactions, the payment network's signed notifications and hints.
 * Emits `payments.status_changed` and `payments.mandate_notification` (status-events.service.ts).
 */
import { defineModule } from '../../platform/module';
import { quiet, sweepWorker } from '../../workers/loop';
import { bankInbound } from './bank.inbound';
import { createNetworkReconcileWorker } from './network-reconcile.worker';
import { paymentsRoutes } from './payments.routes';
import { paymentLinkExpiryTimer } from './payments.service';
import { eraseLapsedRefundAccounts } from './refund-account-retention.worker';
import { compactTransactionCounts } from './transaction-counts.repo';

export const paymentsModule = defineModule({
  name: 'payments',
  api: [paymentsRoutes],
  inbound: [bankInbound],
  // Payment links past expires_at: pending ones expire, processing ones are read from the network.
  timers: [paymentLinkExpiryTimer],
  workers: (deps) => {
    // A network whose news can be lost (bank.reconcile; Token.io): payment reconciliation, Sub-TPP reviews, mandates.
    const reconcile = createNetworkReconcileWorker(deps);
    const retentionDays = deps.providers.bank.refundAccountRetentionDays;
    return [
      ...(reconcile ? [reconcile] : []),
      // The payer's sealed refund account is erased after the network's retention (Token.io:
      // SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS), in batches.
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
