/** Transactions: reads, refresh-status, cancel, sandbox simulate, inbound bank notifications, link expiry. */

import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import type { ActionViewer } from '../../platform/actions';
import { toCurrencyScale } from '../../platform/decimal';
import { defineTimer, runDueTimers, setTimer } from '../../platform/jobs/index';
import type { AuthRow, ClientAuth } from '../../plugins/auth';
import type { BankNotification } from '../../providers/bank/port';
import { addSeconds, secondsUntil } from '../../shared/clock';
import { AppError, badRequest, conflict, notFound, tooManyRequests, unauthorized } from '../../shared/errors';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { keepRefundAccount, sessionRefOf, syncWithNetwork } from './network-sync.service';
import type { OriginType } from './origin.policy';
import { actorOf } from './paylink.service';
import { PAYMENT_LINK_EXPIRY } from './paylink.statements';
import { refundableAmount, transactionActions } from './payments.actions';
import { isTerminal, normalizeProviderStatus, PROVIDER_STATUS_MAP } from './payments.machine';
import { PaymentMessages } from './payments.messages';
import {
  findTransactionById,
  findTransactionByRef,
  listStatusEvents,
  listTransactions,
  listTransactionsByStatus,
  readTransactionForClient,
  type StatusEventRow,
  type TransactionFilters,
  type TransactionRow,
  transactionCoreFields,
  transactionOfAuthRow,
} from './payments.repo';
import { outcomePath, type SandboxOutcome } from './sandbox-outcome.policy';
import { AUTOMATIC, applyProviderStatus, moveTransaction } from './status.service';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function checkoutUrl(deps: Deps, t: TransactionRow): string {
  return checkoutUrlOfToken(deps, t.checkoutToken);
}

/** The hosted checkout URL of a checkout token (lists that join transactions read only the token). */
export function checkoutUrlOfToken(deps: Pick<Deps, 'config'>, checkoutToken: string): string {
  return `${deps.config.publicUrl}/checkout/${checkoutToken}`;
}

/**
 * The API view of a transaction. Object.assign onto the core fields rather than an object spread:
 * V8 builds `{...core, <13 more>}` on a slow path, 10-20x the cost of the same object built
 * directly (a micro-benchmark of 50-row pages; it was 13% of the main thread on a 50-row list).
 */
export function toTransactionDto(deps: Deps, t: TransactionRow, viewer: ActionViewer) {
  return Object.assign(transactionCoreFields(t), {
    status: t.status,
    provider_status: t.providerStatus,
    reconciliation_state: t.reconciliationState as
      | 'none'
      | 'awaiting_provider_confirmation'
      | 'manual_review_required',
    status_reason: t.statusReason,
    description: t.description,
    metadata: t.metadata,
    origin: { type: t.originType as OriginType, id: t.originId },
    checkout_url: checkoutUrl(deps, t),
    redirect_url: t.redirectUrl,
    expires_at: t.expiresAt.toISOString(),
    completed_at: iso(t.completedAt),
    refunded_amount: toCurrencyScale(t.refundedAmount, t.currency, 'exact'),
    refundable_amount: refundableAmount(t),
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
    allowed_actions: transactionActions.of(t, viewer),
  });
}

export function toStatusEventDto(e: StatusEventRow) {
  return {
    status_event_id: e.id,
    transaction_id: e.transactionId,
    previous_status: e.fromStatus,
    status: e.toStatus,
    provider_status: e.providerStatus,
    reconciliation_state: e.reconciliationState,
    kind: e.kind,
    reason: e.reason,
    ref_id: e.refId,
    actor_type: e.actorType,
    actor_account_id: e.actorAccountId,
    occurred_at: e.occurredAt.toISOString(),
    created_at: e.createdAt.toISOString(),
  };
}

/**
 * A client's transaction, or 404. `pre`: the row the token check already read with
 * TRANSACTION_AUTH_READ (GET /transactions/{id}), so no second statement.
 */
export async function getTransaction(
  deps: Deps,
  clientId: string,
  id: string,
  pre: AuthRow | null = null,
): Promise<TransactionRow> {
  const read = transactionOfAuthRow(pre);
  const t = read === undefined ? await readTransactionForClient(deps.database, clientId, id) : read;
  if (!t) throw notFound(M.transactionNotFound);
  return t;
}

export async function listClientTransactions(
  deps: Deps,
  clientId: string,
  f: TransactionFilters,
  page: PageParams,
  viewer: ActionViewer,
) {
  const onlyStatus =
    !f.projectId && !f.userId && !f.originType && !f.reconciliationState && !f.contractRequestId && !f.q;
  const { rows, total } = onlyStatus
    ? await listTransactionsByStatus(deps.database, clientId, f.status, page)
    : await listTransactions(deps.db, clientId, f, page);
  return {
    transactions: rows.map((r) => toTransactionDto(deps, r, viewer)),
    pagination: paginationMeta(total, page),
  };
}

export async function listTransactionTimeline(deps: Deps, clientId: string, id: string) {
  await getTransaction(deps, clientId, id);
  const events = await listStatusEvents(deps.db, clientId, id);
  return { transaction_id: id, status_events: events.map(toStatusEventDto) };
}

/**
 * POST refresh-status: polls the payment network for the current session and applies what it
 * reports. Pending/processing only; one accepted refresh per transaction per cooldown, enforced
 * by a compare-and-set on last_refresh_at (holds across nodes).
 */
export async function refreshTransactionStatus(
  deps: Deps,
  auth: ClientAuth,
  id: string,
): Promise<TransactionRow> {
  const t = await getTransaction(deps, auth.clientId, id);
  if (isTerminal(t.status)) throw badRequest(M.terminalCannotRefresh);
  if (!t.transferId) throw badRequest(M.noUpstreamId);
  const now = deps.clock.now();
  const cooldown = deps.config.refreshCooldownSeconds;
  const [accepted] = await deps.db
    .update(transactions)
    .set({ lastRefreshAt: now })
    .where(
      and(
        eq(transactions.id, t.id),
        eq(transactions.clientId, auth.clientId),
        or(isNull(transactions.lastRefreshAt), lte(transactions.lastRefreshAt, addSeconds(now, -cooldown))),
      ),
    )
    .returning({ id: transactions.id });
  if (!accepted) {
    const [row] = await deps.db
      .select({ last: transactions.lastRefreshAt })
      .from(transactions)
      .where(eq(transactions.id, t.id));
    const resetAt = addSeconds(row?.last ?? now, cooldown);
    throw tooManyRequests(M.refreshTooSoon, secondsUntil(now, resetAt), 1, resetAt);
  }
  try {
    return (await syncWithNetwork(deps, t, actorOf(auth))).transaction;
  } catch (err) {
    deps.log.error({ err, transactionId: t.id }, 'payment network status poll failed');
    throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
  }
}

/** POST /checkout/intent/{id}/cancel: pending or processing -> canceled; terminal -> 409. */
export async function cancelPaymentIntent(deps: Deps, auth: ClientAuth, id: string): Promise<TransactionRow> {
  const t = await getTransaction(deps, auth.clientId, id);
  return cancelTransaction(deps, t, actorOf(auth), 'Canceled by the merchant');
}

/** Shared by the API cancel and the payer's cancel on the hosted checkout. */
export async function cancelTransaction(
  deps: Deps,
  t: TransactionRow,
  actor: typeof AUTOMATIC,
  reason: string,
): Promise<TransactionRow> {
  if (isTerminal(t.status)) throw conflict(PaymentMessages.terminalCannotCancel);
  const now = deps.clock.now();
  const result = await deps.db.transaction((tx) =>
    moveTransaction(
      tx,
      t.id,
      'canceled',
      'canceled',
      { occurredAt: now, now, actor, events: deps.events },
      reason,
    ),
  );
  if (!result) throw conflict(PaymentMessages.terminalCannotCancel);
  if (t.transferId) {
    // Tell the network after the commit; the payment is canceled on our side regardless.
    await deps.providers.bank
      .cancelSession(t.refId)
      .catch((err) => deps.log.warn({ err, transactionId: t.id }, 'could not cancel the bank session'));
  }
  return result.transaction;
}

/** Sandbox: the network reports `providerStatus`, through the signed notification route. */
export async function simulateProviderStatus(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  request: { providerStatus: string } | { outcome: SandboxOutcome },
) {
  const simulate = deps.providers.bank.simulate;
  if (deps.config.environment !== 'sandbox' || !simulate) throw notFound(M.notFound);
  const t = await getTransaction(deps, auth.clientId, id);
  const steps = 'outcome' in request ? outcomePath(t.status, request.outcome) : [request.providerStatus];
  try {
    for (const step of steps) await simulate.call(deps.providers.bank, t.refId, step);
  } catch (err) {
    deps.log.error({ err, transactionId: t.id }, 'sandbox simulation failed');
    throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
  }
  return getTransaction(deps, auth.clientId, id);
}

/** Verifies an inbound network notification's signature (401 when unsigned, stale or badly signed). */
export function verifyBankNotification(
  deps: Deps,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
): BankNotification {
  const n = deps.providers.bank.verifyNotification(rawBody, headers);
  if (!n) throw unauthorized(PaymentMessages.invalidNotificationSignature);
  return n;
}

/** POST /providers/bank/notifications: applies a verified notification through the status machine. */
export async function applyBankNotification(
  deps: Deps,
  n: BankNotification,
): Promise<{ received: true; applied: boolean }> {
  if (n.kind === 'mandate')
    return {
      received: true,
      applied: await deps.db.transaction((tx) => deps.events.emit(tx, 'payments.mandate_notification', n)),
    };
  if (n.kind === 'refund')
    return {
      received: true,
      applied: await deps.db.transaction((tx) => deps.events.emit(tx, 'payments.refund_notification', n)),
    };
  const t = await findTransactionByRef(deps.db, n.refId);
  if (!t) {
    deps.log.info(
      { refId: n.refId },
      'bank notification for no current session (replaced or unknown ref_id)',
    );
    return { received: true, applied: false };
  }
  await deps.db.transaction((tx) =>
    applyProviderStatus(tx, t.id, n.providerStatus, {
      occurredAt: n.occurredAt,
      now: deps.clock.now(),
      actor: AUTOMATIC,
      transferId: n.transferId,
      events: deps.events,
    }),
  );
  return { received: true, applied: true };
}

/**
 * The expiry timer of a payment link: set to expires_at when the link is created (in its insert,
 * paylink.statements.ts). At that time a pending transaction becomes expired, and a processing one
 * is reconciled with the network: its final status when it has one, else the bank authentication
 * timed out (processing -> expired, provider_status no_final_status). While the bank still holds an
 * open authorization window, or the network cannot be read, the timer comes back after
 * LAPSED_RECHECK_SECONDS. Network calls happen outside database transactions; the moves are
 * compare-and-set, so a timer run twice acts once.
 */
export const paymentLinkExpiryTimer = defineTimer<{ transactionId: string }>({
  ...PAYMENT_LINK_EXPIRY,
  label: 'Payment link expiry',
  backfill:
    () => sql`select 'transaction:' || id::text as key, jsonb_build_object('transactionId', id::text) as payload,
                       client_id, expires_at as run_at
                  from transactions where status in ('pending', 'processing')`,
  async fire(deps, { transactionId }) {
    const t = await findTransactionById(deps.db, transactionId);
    const now = deps.clock.now();
    if (!t || t.expiresAt > now) return false;
    if (t.status === 'pending')
      return deps.db.transaction(async (tx) => {
        // Under the row lock: a payer choosing a bank meanwhile keeps the payment processing.
        const [cur] = await tx.select().from(transactions).where(eq(transactions.id, t.id)).for('update');
        if (cur?.status !== 'pending' || cur.expiresAt > now) return false;
        return (await expireLink(deps, tx, cur, now)) !== null;
      });
    if (t.status !== 'processing') return false;
    const outcome = await timeOutLapsedAuthorization(deps, t);
    if (outcome === 'waiting')
      await setTimer(deps.db, deps.clock, PAYMENT_LINK_EXPIRY, {
        payload: { transactionId },
        runAt: addSeconds(deps.clock.now(), LAPSED_RECHECK_SECONDS),
        clientId: t.clientId,
      });
    return outcome === 'moved';
  },
});

/** How soon a lapsed processing payment whose bank window is still open is read again. */
const LAPSED_RECHECK_SECONDS = 10;

/**
 * Runs the due payment link expiry timers now (tests, the CLI); returns how many payments moved.
 * A link whose expires_at was moved earlier by hand is due at its new time.
 */
export async function expireDuePayments(deps: Deps): Promise<number> {
  return runDueTimers(deps, [paymentLinkExpiryTimer]);
}

/** Detail statuses at which the bank holds the payment (the payer approved) but has not finished it. */
const BANK_HAS_PAYMENT: ReadonlySet<string> = new Set(['processing', 'settling', 'awaiting_redemption']);

export const LINK_EXPIRED_WHILE_PROCESSING =
  'The payment link expired while the bank was still processing the payment: money may move; held for manual review';

/** One processing payment whose link lapsed: moved, or waiting (read again later). */
async function timeOutLapsedAuthorization(deps: Deps, t: TransactionRow): Promise<'moved' | 'waiting'> {
  const now = deps.clock.now();
  const session = await deps.providers.bank.getSession(await sessionRefOf(deps, t)).catch((err) => {
    deps.log.warn({ err, transactionId: t.id }, 'network status check failed; retrying later');
    return undefined;
  });
  if (session === undefined) return 'waiting';
  const ctx = { occurredAt: now, now, actor: AUTOMATIC, events: deps.events };
  if (session && !session.expired) {
    const target = normalizeProviderStatus(session.providerStatus);
    const final =
      target !== 'unknown' &&
      PROVIDER_STATUS_MAP[target] !== null &&
      PROVIDER_STATUS_MAP[target] !== 'processing';
    if (!final) {
      // The bank has the payment (the payer approved) and has not finished: our link's lifetime
      // is over but money may still move, so the payment is held, not silently expired (brief
      // H2 point 7): expired with no final status, manual review, read on the slow cadence.
      if (BANK_HAS_PAYMENT.has(target)) {
        const held = await deps.db.transaction((tx) =>
          moveTransaction(tx, t.id, 'expired', 'no_final_status', ctx, LINK_EXPIRED_WHILE_PROCESSING, {
            review: true,
          }),
        );
        return held ? 'moved' : 'waiting';
      }
      return 'waiting'; // otherwise the bank still has an open authorization window
    }
  }
  // No session to read any more: held when the bank last had the payment, plainly expired otherwise.
  const lastHeld = !session || session.expired ? BANK_HAS_PAYMENT.has(t.providerStatus ?? '') : false;
  const r = await deps.db.transaction(async (tx) => {
    // The payer's refund account, when this read is the first to return it (as applySession does).
    if (session) await keepRefundAccount(deps, tx, t, session);
    return session && !session.expired
      ? applyProviderStatus(tx, t.id, session.providerStatus, {
          occurredAt: session.updatedAt,
          now,
          actor: AUTOMATIC,
          events: deps.events,
        })
      : lastHeld
        ? moveTransaction(tx, t.id, 'expired', 'no_final_status', ctx, LINK_EXPIRED_WHILE_PROCESSING, {
            review: true,
          })
        : moveTransaction(tx, t.id, 'expired', 'no_final_status', ctx);
  });
  return r && r.transaction.status !== 'processing' ? 'moved' : 'waiting';
}

/** Expires one pending transaction now if its link lapsed (the checkout page does not wait for the sweeper). */
export async function expireIfDue(deps: Deps, t: TransactionRow): Promise<TransactionRow> {
  const now = deps.clock.now();
  if (t.status !== 'pending' || t.expiresAt > now) return t;
  const r = await deps.db.transaction((tx) => expireLink(deps, tx, t, now));
  return r?.transaction ?? t;
}

/** Why a held payment (e.g. a lost creation answer) stays held when its link expires. */
export const HELD_AT_EXPIRY_REASON =
  'The payment link expired while the payment was held for review: the payment network may still have the payment; held for manual review';

/**
 * Expires a pending payment whose link lapsed. One held for manual review (the network may hold a
 * payment we cannot see yet) stays held: expired with no final status, read on the slow cadence
 * (readHeldPayments) so a late completion reaches the merchant, and never retried automatically.
 */
function expireLink(deps: Pick<Deps, 'events'>, tx: Tx, t: TransactionRow, now: Date) {
  const ctx = { occurredAt: t.expiresAt, now, actor: AUTOMATIC, events: deps.events };
  return t.reconciliationState === 'manual_review_required'
    ? moveTransaction(tx, t.id, 'expired', 'no_final_status', ctx, HELD_AT_EXPIRY_REASON, { review: true })
    : moveTransaction(tx, t.id, 'expired', 'expired', ctx);
}
