/**
 * Other areas that follow an ownership request's final status (travel rule's unhosted wallets). The
 * listeners run inside the transaction that moves the request.
 */
import type { DbOrTx } from '../../db/client';
import type { OwnershipRow } from './ownership.machine';

type Listener = (tx: DbOrTx, r: OwnershipRow, now: Date) => Promise<void>;
const listeners: Listener[] = [];

export function onOwnershipStatusChange(fn: Listener): void {
  listeners.push(fn);
}

export async function runOwnershipListeners(tx: DbOrTx, r: OwnershipRow, now: Date): Promise<void> {
  for (const fn of listeners) await fn(tx, r, now);
}
