/**
 * Payments: payment links and transactions, the payment network's signed notifications and hints.
 * Emits `payments.status_changed` and `payments.mandate_notification` (status-events.service.ts).
 */
import { defineModule } from '../../platform/module';
import { quiet, SWEEP_IDLE_MAX_MS } from '../../workers/loop';
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
    return reconcile ? [reconcile] : [];
  },
  housekeeping: (deps) => {
    const retentionDays = deps.providers.bank.refundAccountRetentionDays;
    return [
      // The payer's sealed refund account is erased after the network's retention (Token.io:
      // SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS), in batches.
      ...(retentionDays
        ? [
            {
              name: 'refund-account-retention',
              everyMs: 60_000,
              run: () => eraseLapsedRefundAccounts(deps, retentionDays),
            },
          ]
        : []),
      // Folds the transaction count deltas (GET /transactions totals read base plus deltas, so this
      // is only about keeping the deltas few).
      {
        name: 'transaction-count-compactor',
        everyMs: SWEEP_IDLE_MAX_MS,
        run: quiet(() => compactTransactionCounts(deps.db)),
      },
    ];
  },
});
