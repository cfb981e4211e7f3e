/**
 * Refunds of paid payments (docs/guides/refunds.md): the API, the submit job that hands a refund
 * to the payment network once, the bank notifications of refunds (hints, read back at the network)
 * and the reconciliation sweep of processing refunds (SVC_REFUND_RECONCILE_SECONDS).
 */
import { defineModule, on } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { refundsRoutes } from './refunds.routes';
import { onRefundNotification, reconcileRefunds, refundSubmitJob, refundSyncJob } from './refunds.service';

export const refundsModule = defineModule({
  name: 'refunds',
  api: [refundsRoutes],
  jobs: [refundSubmitJob, refundSyncJob],
  workers: (deps) => [sweepWorker(deps, 'refund-reconciliation', () => reconcileRefunds(deps))],
  subscriptions: [on('payments.refund_notification', (n, { tx, deps }) => onRefundNotification(deps, tx, n))],
});
