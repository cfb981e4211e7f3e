/**
 * The payments feature's events on the app's bus (docs/platform.md, "Events"):
 * - `payments.status_changed`: a payment moved (status.service.ts), inside the transaction that
 *   moves it. Features that create payments (schedules, recurring runs, invoices) react to their
 *   own payments with `onPaymentStatus(origin, …)` in their manifest, so the payment and what it
 *   means for the feature commit together. A listener does database work only: a new payment link
 *   or an email is due work for a worker or a job.
 * - `payments.mandate_notification`: the bank notified a VRP mandate's status (same signed route as
 *   payment notifications, `kind: "mandate"`, ref_id = the mandate_ref); recurring payments own
 *   mandates. A listener returns true when it applied the notification.
 * - `payments.refund_notification`: the bank notified a refund (`kind: "refund"`, ref_id = our refund
 *   id); the refunds feature takes it as a hint and reads the refund at the network.
 */

import type { Deps } from '../../deps';
import type { ListenerContext } from '../../platform/events';
import { type AppSubscription, on } from '../../platform/module';
import type { BankNotification } from '../../providers/bank/port';
import type { OriginType } from './origin.policy';
import type { TransactionStatus } from './payments.machine';
import type { TransactionRow } from './payments.repo';

export interface PaymentStatusChange {
  transaction: TransactionRow;
  from: TransactionStatus;
  to: TransactionStatus;
  /** When the change happened. */
  at: Date;
}

declare module '../../platform/events' {
  interface AppEvents {
    'payments.status_changed': PaymentStatusChange;
    'payments.mandate_notification': BankNotification;
    'payments.refund_notification': BankNotification;
  }
}

/** Reacts to the status changes of the payments of one origin (the feature's own payments). */
export function onPaymentStatus(
  origin: OriginType,
  listener: (change: PaymentStatusChange, ctx: ListenerContext<Deps>) => Promise<void>,
): AppSubscription {
  return on('payments.status_changed', async (change, ctx) => {
    if (change.transaction.originType === origin) await listener(change, ctx);
  });
}
