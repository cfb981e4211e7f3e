/**
 * Features that create payments (schedules, recurring runs, invoices, …) react to their payments'
 * status changes here, inside the transaction that moves the payment, so the payment and what it
 * means for the feature commit together. A listener does database work only: anything that calls a
 * provider (a new payment link, an email) is recorded as due work for a worker.
 *
 * Listeners are keyed by the transaction's origin type; a feature registers its listener from its
 * `<feature>.listeners.ts`, which src/modules/index.ts imports.
 */
import type { Tx } from '../../db/client';
import type { OriginType } from './origin';
import type { TransactionStatus } from './payments.machine';
import type { TransactionRow } from './payments.repo';

export interface PaymentStatusChange {
  transaction: TransactionRow;
  from: TransactionStatus;
  to: TransactionStatus;
  /** When the change happened. */
  at: Date;
}

export type PaymentStatusListener = (tx: Tx, change: PaymentStatusChange) => Promise<void>;

const listeners = new Map<OriginType, PaymentStatusListener[]>();

export function onPaymentStatusChange(origin: OriginType, listener: PaymentStatusListener): void {
  const list = listeners.get(origin) ?? [];
  if (!list.includes(listener)) list.push(listener);
  listeners.set(origin, list);
}

export async function dispatchPaymentStatusChange(tx: Tx, change: PaymentStatusChange): Promise<void> {
  for (const listener of listeners.get(change.transaction.originType as OriginType) ?? [])
    await listener(tx, change);
}
