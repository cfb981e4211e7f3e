/**
 * Other areas that follow a verification's result (monitoring's identity_reverification
 * remediation). Listeners run inside the transaction that records the provider's result.
 */
import type { Tx } from '../../db/client';
import type { RecordRow, SessionRow } from './verification.repo';

type Listener = (tx: Tx, session: SessionRow, record: RecordRow, now: Date) => Promise<void>;
const listeners: Listener[] = [];

export function onVerificationResult(fn: Listener): void {
  listeners.push(fn);
}

export async function runVerificationListeners(
  tx: Tx,
  session: SessionRow,
  record: RecordRow,
  now: Date,
): Promise<void> {
  for (const fn of listeners) await fn(tx, session, record, now);
}
