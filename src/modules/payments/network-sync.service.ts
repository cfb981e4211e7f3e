/**
 * Reading a payment at the network and moving it through the status machine: refresh-status, the
 * checkout's return page, an inbound hint from a network whose notifications cannot be verified,
 * and the reconciliation worker of polling networks (a non-final payment whose last news is older
 * than a bound is read again, with backoff, until final). Network calls happen outside database
 * transactions; the moves are compare-and-set, so several nodes may do this at once.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf, type Tx } from '../../db/client';
import { mapRow } from '../../db/hot';
import { transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import type { BankSession, RefundAccount, SessionRef } from '../../providers/bank/port';
import { addSeconds } from '../../shared/clock';
import { decrypt, encrypt } from '../../shared/crypto';
import { payeeOfProject } from './payee.repo';
import {
  isCanceledAtNetworkOpen,
  isTerminal,
  mayHaveMoved,
  normalizeProviderStatus,
  PROVIDER_STATUS_MAP,
} from './payments.machine';
import { findTransactionById, type TransactionRow } from './payments.repo';
import {
  type Actor,
  AUTOMATIC,
  applyProviderStatus,
  type ChangeResult,
  type MoveContext,
} from './status.service';

/**
 * Which session to read for `t`. Without the network's id the payment is looked up by our
 * reference, on behalf of the payee's Sub-TPP (Token.io requires it of TPPs under its licence).
 */
export async function sessionRefOf(deps: Pick<Deps, 'db'>, t: TransactionRow): Promise<SessionRef> {
  if (t.transferId) return { refId: t.refId, transferId: t.transferId };
  const payee = await payeeOfProject(deps.db, t.projectId);
  return { refId: t.refId, transferId: null, onBehalfOfId: payee?.subTppId ?? null };
}

/** How the reconciliation worker paces itself (configuration of the polling network). */
export interface ReconcilePolicy {
  /** A payment is read only once its last news is older than this. */
  afterSeconds: number;
  /** First interval between reads; doubles after each read that brings no news. */
  intervalSeconds: number;
  /** The longest interval between two reads. */
  maxIntervalSeconds: number;
}

/**
 * The codes to apply for a status read from the network. A payment first seen already completed
 * (a VRP payment, or one adopted after a lost answer) went through processing at the network, in
 * the documented order: that step is applied first, so pending -> success is never a jump the
 * status machine must hold for review.
 */
function stepsFor(current: string, code: string): string[] {
  const target = normalizeProviderStatus(code);
  const success = target !== 'unknown' && PROVIDER_STATUS_MAP[target] === 'success';
  return current === 'pending' && success ? ['processing', code] : [code];
}

async function applyCodes(
  tx: Tx,
  transactionId: string,
  current: string,
  code: string,
  ctx: MoveContext,
): Promise<ChangeResult> {
  let result: ChangeResult | null = null;
  for (const step of stepsFor(current, code))
    result = await applyProviderStatus(tx, transactionId, step, ctx);
  return result!;
}

/** The first reconciliation read of a payment, `afterSeconds` from now (in the caller's transaction). */
export async function scheduleNetworkCheck(
  tx: DbOrTx,
  transactionId: string,
  afterSeconds: number,
  now: Date,
): Promise<void> {
  await tx
    .update(transactions)
    .set({ networkCheckAt: addSeconds(now, afterSeconds), networkChecks: 0 })
    .where(eq(transactions.id, transactionId));
}

/**
 * The network answered a creation with the payment's id and status (Token.io; the sandbox reports
 * by notification instead): both go through the status machine, and the reconciliation reads start.
 */
export async function recordNetworkAnswer(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'events' | 'providers'>,
  transactionId: string,
  answer: { transferId: string; providerStatus: string; occurredAt?: Date },
  actor: Actor = AUTOMATIC,
): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const current = await findTransactionById(tx, transactionId);
    await applyCodes(tx, transactionId, current?.status ?? 'pending', answer.providerStatus, {
      occurredAt: answer.occurredAt ?? now,
      now,
      actor,
      transferId: answer.transferId,
      events: deps.events,
    });
    await scheduleNetworkCheck(
      tx,
      transactionId,
      deps.providers.bank.reconcile?.payments.afterSeconds ?? 300,
      now,
    );
  });
}

/**
 * The payer's refund account from `session`, sealed with the data key onto `t` the first time the
 * network shares it (a row that already has one keeps it). Nothing when the session has none.
 */
export async function keepRefundAccount(
  deps: Pick<Deps, 'secrets'>,
  tx: DbOrTx,
  t: Pick<TransactionRow, 'id' | 'refundAccountEnc'>,
  session: Pick<BankSession, 'refundAccount'>,
): Promise<void> {
  if (!session.refundAccount || t.refundAccountEnc) return;
  await tx
    .update(transactions)
    .set({ refundAccountEnc: encrypt(deps.secrets.encryptionKey, JSON.stringify(session.refundAccount)) })
    .where(and(eq(transactions.id, t.id), isNull(transactions.refundAccountEnc)));
}

/**
 * Applies what the network reports for `t` (a session read a moment ago). Returns the transaction
 * as it is now and whether anything changed; nothing is written when the report is old news.
 */
export async function applySession(
  deps: Pick<Deps, 'db' | 'clock' | 'events' | 'secrets'>,
  t: TransactionRow,
  session: BankSession,
  actor: Actor = AUTOMATIC,
): Promise<{ transaction: TransactionRow; changed: boolean }> {
  const reported = normalizeProviderStatus(session.providerStatus);
  const sameSession = !session.transferId || session.transferId === t.transferId;
  // The payer's refund account, the first time the network shares it: sealed, kept with the payment.
  if (reported === t.providerStatus && sameSession) {
    await keepRefundAccount(deps, deps.db, t, session);
    return { transaction: t, changed: false };
  }
  const result = await deps.db.transaction(async (tx) => {
    const r = await applyCodes(tx, t.id, t.status, session.providerStatus, {
      occurredAt: session.updatedAt,
      now: deps.clock.now(),
      actor,
      transferId: session.transferId,
      networkTrace: session.traceId ?? null,
      events: deps.events,
    });
    await keepRefundAccount(deps, tx, t, session);
    return r;
  });
  return { transaction: result.transaction, changed: result.decision !== 'noop' };
}

/** The payer's refund account the network shared for `t` (decrypted), or null. Never log it. */
export function refundAccountOfTransaction(
  deps: Pick<Deps, 'secrets'>,
  t: Pick<TransactionRow, 'refundAccountEnc'>,
): RefundAccount | null {
  return t.refundAccountEnc
    ? (JSON.parse(decrypt(deps.secrets.encryptionKey, t.refundAccountEnc)) as RefundAccount)
    : null;
}

/** Reads the transaction's session at the network and applies it. Throws the network's error (the caller decides). */
export async function syncWithNetwork(
  deps: Deps,
  t: TransactionRow,
  actor: Actor = AUTOMATIC,
): Promise<{ transaction: TransactionRow; changed: boolean }> {
  if (isTerminal(t.status)) return { transaction: t, changed: false };
  const session = await deps.providers.bank.getSession(await sessionRefOf(deps, t));
  if (!session) return { transaction: t, changed: false };
  return applySession(deps, t, session, actor);
}

/** An inbound hint names a network payment id: read that payment and apply it. Unknown ids change nothing. */
export async function syncByTransferId(deps: Deps, transferId: string): Promise<boolean> {
  const [t] = await deps.db.select().from(transactions).where(eq(transactions.transferId, transferId));
  if (!t) return false;
  if (isHeldForReview(t)) return readHeldPayment(deps, t);
  return (await syncWithNetwork(deps, t)).changed;
}

/**
 * One pass of the reconciliation worker: claims up to `batch` due payments (SKIP LOCKED; a claim
 * pushes the next read out by the backoff, so a crash only delays it), reads each at the network
 * and applies it. A payment with recent news is pushed to `afterSeconds` past that news unread.
 */
export async function reconcileDuePayments(deps: Deps, policy: ReconcilePolicy, batch = 20): Promise<number> {
  const now = deps.clock.now();
  const claimed = await deps.db.transaction(async (tx) => {
    await tx.execute(sql`
      update transactions set network_check_at = updated_at + ${policy.afterSeconds} * interval '1 second'
       where network_check_at <= ${now.toISOString()}::timestamptz
         and status in ('pending', 'processing')
         and updated_at > ${addSeconds(now, -policy.afterSeconds).toISOString()}::timestamptz`);
    const res = await tx.execute(sql`
      with due as (
        select id from transactions
         where network_check_at <= ${now.toISOString()}::timestamptz and status in ('pending', 'processing')
         order by network_check_at limit ${batch} for update skip locked)
      update transactions t
         set network_check_at = ${now.toISOString()}::timestamptz + least(
               ${policy.intervalSeconds} * power(2, least(t.network_checks, 20)), ${policy.maxIntervalSeconds}
             ) * interval '1 second',
             network_checks = t.network_checks + 1
        from due where t.id = due.id
      returning t.*`);
    return rowsOf<Record<string, unknown>>(res).map((r) => mapRow(transactions, r));
  });
  for (const t of claimed) {
    try {
      const { transaction, changed } = await syncWithNetwork(deps, t);
      if (changed && !isTerminal(transaction.status))
        await scheduleNetworkCheck(deps.db, t.id, policy.afterSeconds, deps.clock.now());
    } catch (err) {
      deps.log.warn({ err, transactionId: t.id }, 'reconciliation read failed; retried after its backoff');
    }
  }
  return claimed.length;
}

/** How long and how often a payment held for review after it ended is still read. */
export interface ReviewPolicy {
  intervalSeconds: number;
  days: number;
}

/**
 * One pass over the payments that ended without a final status (expired, manual review): money
 * may have moved, so the network is still read every `intervalSeconds` for `days` days after the
 * end. A late completion is raised by the status machine (timeline, payment.status_changed with
 * equal statuses, a notification) without moving the coarse status; any other final news is
 * recorded on the timeline. Either ends the reads (the detail status is no longer "no final status").
 * A payment canceled on our side while the network's payment was open is read the same way: the
 * network may have no cancel, and the payer may still approve at the bank.
 */
export async function readHeldPayments(deps: Deps, policy: ReviewPolicy, batch = 20): Promise<number> {
  const now = deps.clock.now();
  const claimed = await deps.db.transaction(async (tx) => {
    const res = await tx.execute(sql`
      with due as (
        select id from transactions
         where ((status = 'expired' and reconciliation_state = 'manual_review_required'
                 and provider_status in ('no_final_status', 'expired'))
             -- canceled on our side while the network's payment was open (isCanceledAtNetworkOpen)
             or (status = 'canceled' and reconciliation_state = 'none' and transfer_id is not null
                 and provider_status in ('canceled', 'no_final_status', 'expired')))
           and completed_at >= ${addSeconds(now, -policy.days * 86400).toISOString()}::timestamptz
           and (network_check_at is null or network_check_at <= ${now.toISOString()}::timestamptz)
         order by network_check_at nulls first limit ${batch} for update skip locked)
      update transactions t
         set network_check_at = ${addSeconds(now, policy.intervalSeconds).toISOString()}::timestamptz
        from due where t.id = due.id
      returning t.*`);
    return rowsOf<Record<string, unknown>>(res).map((r) => mapRow(transactions, r));
  });
  for (const t of claimed) {
    try {
      await readHeldPayment(deps, t);
    } catch (err) {
      deps.log.warn({ err, transactionId: t.id }, 'read of a payment held for review failed; retried later');
    }
  }
  return claimed.length;
}

/** A payment that ended without a final status and is held for review (read by readHeldPayments and hints). */
export function isHeldForReview(t: TransactionRow): boolean {
  if (isCanceledAtNetworkOpen(t)) return true;
  return (
    t.status === 'expired' &&
    t.reconciliationState === 'manual_review_required' &&
    (t.providerStatus === 'no_final_status' || t.providerStatus === 'expired')
  );
}

/** Reads a held payment at the network; only final news (a late outcome) is applied. */
async function readHeldPayment(deps: Deps, t: TransactionRow): Promise<boolean> {
  const session = await deps.providers.bank.getSession(await sessionRefOf(deps, t));
  if (!session) return false;
  const code = normalizeProviderStatus(session.providerStatus);
  // Still without a final status, or news that is not final: nothing to record.
  if (code === 'unknown' || code === t.providerStatus || mayHaveMoved(code, 'processing')) return false;
  if (PROVIDER_STATUS_MAP[code] === null || PROVIDER_STATUS_MAP[code] === 'processing') return false;
  return (await applySession(deps, t, session)).changed;
}
