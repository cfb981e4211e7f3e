/**
 * Refunds of paid payments (docs/guides/refunds.md): creation under the payment's row lock (so the
 * refunds never exceed the payment, whatever runs at once), the submit job that hands a refund to
 * the payment network once, cancel before that, and the reads at the network (notifications are
 * hints, the reconciliation sweep catches what they miss).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { refunds, transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { emitEvent } from '../../outbox/emit';
import type { ActionViewer } from '../../platform/actions';
import {
  add,
  compare,
  currencyScale,
  isZero,
  normalizeAmount,
  sub,
  toCurrencyScale,
} from '../../platform/decimal';
import { runIdempotent } from '../../platform/idempotency';
import { defineJob, enqueueJobId, type JobDefinition, runJobsNow } from '../../platform/jobs/index';
import type { ClientAuth } from '../../plugins/auth';
import {
  type BankNotification,
  BankRefusedError,
  RefundNeedsReviewError,
  type RefundNetwork,
  type RefundRead,
} from '../../providers/bank/port';
import { addSeconds } from '../../shared/clock';
import { AppError, conflict, invalidField, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { recordActivity } from '../activity/activity-writer.service';
import { payeeOfProject } from '../payments/payee.repo';
import { actorOf } from '../payments/paylink.service';
import { refundableAmount } from '../payments/payments.actions';
import {
  findTransactionById,
  findTransactionForClient,
  type TransactionRow,
} from '../payments/payments.repo';
import { withRefundActions } from './refunds.actions';
import { cancelable, isRefundTerminal, type RefundRow } from './refunds.machine';
import { RefundMessages } from './refunds.messages';
import {
  findDueProcessing,
  findRefundById,
  findRefundForClient,
  insertRefund,
  listRefunds,
  listTransactionRefunds,
  lockRefund,
  markSubmitted,
  type RefundFilters,
  scheduleNextCheck,
} from './refunds.repo';
import { holdRefundForReview, moveRefund, refundEventData, refundNotification } from './refunds.transitions';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toRefundDto(r: RefundRow) {
  return {
    refund_id: r.id,
    transaction_id: r.transactionId,
    project_id: r.projectId,
    amount: toCurrencyScale(r.amount, r.currency, 'exact'),
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    failure_reason: r.failureReason,
    reconciliation_state: r.reconciliationState,
    review_reason: r.reviewReason,
    metadata: r.metadata ?? {},
    submitted_at: iso(r.submittedAt),
    completed_at: iso(r.completedAt),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export const refundView = (r: RefundRow, viewer: ActionViewer) =>
  withRefundActions(toRefundDto(r), r, viewer);

export async function getRefund(deps: Deps, clientId: string, id: string): Promise<RefundRow> {
  const r = await findRefundForClient(deps.db, clientId, id);
  if (!r) throw notFound(RefundMessages.refundNotFound);
  return r;
}

export async function listClientRefunds(
  deps: Deps,
  clientId: string,
  f: RefundFilters,
  page: PageParams,
  viewer: ActionViewer,
) {
  const { rows, total } = await listRefunds(deps.db, clientId, f, page);
  return { refunds: rows.map((r) => refundView(r, viewer)), pagination: paginationMeta(total, page) };
}

export async function listRefundsOfTransaction(
  deps: Deps,
  clientId: string,
  transactionId: string,
  viewer: ActionViewer,
) {
  const t = await findTransactionForClient(deps.db, clientId, transactionId);
  if (!t) throw notFound(M.transactionNotFound);
  const rows = await listTransactionRefunds(deps.db, clientId, transactionId);
  return { transaction_id: transactionId, refunds: rows.map((r) => refundView(r, viewer)) };
}

// ---- creation ----

export interface CreateRefundInput {
  amount?: string;
  currency?: string;
  reason?: string;
  metadata?: Record<string, unknown>;
}

function amountIssue(amount: string, currency: string): AppError | null {
  const n = normalizeAmount(amount, currency);
  if (n.ok) return null;
  const msg =
    n.problem === 'format'
      ? RefundMessages.amountFormat
      : n.problem === 'not_positive'
        ? RefundMessages.amountNotPositive
        : RefundMessages.amountPrecision(currency, currencyScale(currency));
  return invalidField(['body', 'amount'], msg);
}

/** Why this payment cannot be refunded over the network (422 at the path), or null. */
async function networkProblem(deps: Deps, t: TransactionRow): Promise<string | null> {
  const network = deps.providers.bank.refunds;
  if (!network) return RefundMessages.networkCannotRefund;
  try {
    return await network.refundProblem({
      transactionId: t.id,
      transferId: t.transferId,
      currency: t.currency,
    });
  } catch (err) {
    deps.log.error({ err, transactionId: t.id }, 'refund check at the payment network failed');
    throw new AppError(503, RefundMessages.paymentNetworkUnavailable);
  }
}

/**
 * POST /transactions/{id}/refunds. The payment row is locked (`FOR UPDATE`) in the creating
 * transaction, so the refundable amount read there is the truth: of two refunds of the whole
 * amount at once, the second waits for the first and then finds nothing left (409).
 */
export async function createRefund(
  deps: Deps,
  auth: ClientAuth,
  transactionId: string,
  header: string | string[] | undefined,
  body: CreateRefundInput,
): Promise<{ refund: RefundRow; created: boolean }> {
  let jobId: string | null = null;
  const res = await runIdempotent(
    deps,
    {
      clientId: auth.clientId,
      scope: 'refunds.create',
      header,
      required: true,
      payload: { transaction_id: transactionId, ...body },
    },
    async (commit) => {
      const t = await findTransactionForClient(deps.db, auth.clientId, transactionId);
      if (!t) throw notFound(M.transactionNotFound);
      if (body.currency !== undefined && body.currency !== t.currency)
        throw invalidField(['body', 'currency'], RefundMessages.currencyMismatch(t.currency));
      if (body.amount !== undefined) {
        const issue = amountIssue(body.amount, t.currency);
        if (issue) throw issue;
      }
      if (t.status !== 'success') throw conflict(RefundMessages.onlySuccessfulPayments(t.status));
      const problem = await networkProblem(deps, t);
      if (problem) throw invalidField(['path', 'transaction_id'], problem);
      const refund = await deps.db.transaction(async (tx) => {
        const [locked] = await tx
          .select()
          .from(transactions)
          .where(and(eq(transactions.id, t.id), eq(transactions.clientId, auth.clientId)))
          .for('update');
        if (!locked) throw notFound(M.transactionNotFound);
        if (locked.status !== 'success') throw conflict(RefundMessages.onlySuccessfulPayments(locked.status));
        const left = refundableAmount(locked);
        let amount: string;
        if (body.amount === undefined) {
          if (isZero(left)) throw conflict(RefundMessages.nothingLeft(locked.currency));
          amount = left;
        } else {
          amount = toCurrencyScale(body.amount, locked.currency, 'exact');
          if (compare(amount, left) > 0)
            throw invalidField(['body', 'amount'], RefundMessages.exceedsRefundable(left, locked.currency));
        }
        const now = deps.clock.now();
        const r = await insertRefund(tx, {
          id: newId(),
          clientId: locked.clientId,
          transactionId: locked.id,
          projectId: locked.projectId,
          amount,
          currency: locked.currency,
          status: 'pending',
          reason: body.reason ?? null,
          metadata: body.metadata ?? {},
          createdAt: now,
          updatedAt: now,
        });
        await tx.execute(sql`update transactions
          set refund_held_amount = refund_held_amount + ${amount}::numeric
          where id = ${locked.id}::uuid`);
        await emitEvent(tx, {
          clientId: r.clientId,
          type: 'refund.created',
          data: refundEventData(r, null),
          occurredAt: now,
          dedupKey: `refund:${r.id}:created`,
        });
        await recordActivity(tx, {
          clientId: r.clientId,
          action: 'refund.created',
          at: now,
          target: { type: 'refund', id: r.id, label: `${r.amount} ${r.currency}` },
          changes: { status: { from: null, to: 'pending' } },
          metadata: {
            transaction_id: r.transactionId,
            amount: r.amount,
            currency: r.currency,
            reason: r.reason,
          },
        });
        await refundNotification(tx, r, now);
        jobId = await enqueueJobId(tx, deps.clock, refundSubmitJob, {
          payload: { refundId: r.id },
          dedupeKey: `refund-submit:${r.id}`,
          clientId: r.clientId,
        });
        await commit(tx, { refund_id: r.id }, 201);
        return r;
      });
      return { status: 201, body: { refund_id: refund.id } };
    },
  );
  // The first attempt at once (docs/platform.md, "Jobs"): the answer shows the network's first word.
  if (jobId)
    await runJobsNow(deps, [refundSubmitJob as JobDefinition<never>], [jobId]).catch((err) =>
      deps.log.warn({ err }, 'refund submission failed; the jobs runner retries it'),
    );
  const refund = await findRefundById(deps.db, res.body.refund_id);
  if (!refund) throw notFound(RefundMessages.refundNotFound);
  return { refund, created: !res.replayed };
}

// ---- cancel ----

/** POST /refunds/{id}/cancel: only while pending and not yet handed to the network. */
export async function cancelRefund(deps: Deps, auth: ClientAuth, id: string): Promise<RefundRow> {
  await getRefund(deps, auth.clientId, id);
  return deps.db.transaction(async (tx) => {
    const r = await lockRefund(tx, auth.clientId, id);
    if (!r) throw notFound(RefundMessages.refundNotFound);
    if (r.status === 'pending' && !cancelable(r)) throw conflict(RefundMessages.alreadySubmitted);
    return moveRefund(tx, r, 'cancel', { now: deps.clock.now(), actor: actorOf(auth) });
  }) as Promise<RefundRow>;
}

// ---- the network ----

function networkOf(deps: Deps): RefundNetwork | null {
  return deps.providers.bank.refunds ?? null;
}

/**
 * Applies what the network says of a refund, in order: a pending (submitted) refund is first
 * `processing`, then succeeded or failed. Moves that lost to another writer are skipped (the
 * other writer applied the same news); a terminal refund does not move again.
 */
export async function applyRefundRead(
  deps: Deps,
  tx: Tx,
  refundId: string,
  read: RefundRead,
): Promise<RefundRow | null> {
  const now = deps.clock.now();
  let r = await findRefundById(tx, refundId);
  if (!r || isRefundTerminal(r.status)) return r;
  const facts = {
    providerStatus: read.providerStatus,
    ...(read.networkRefundId ? { networkRefundId: read.networkRefundId } : {}),
  };
  if (r.status === 'pending') {
    if (!r.submittedAt) return r; // never handed over: nothing the network says is about it
    r =
      (await moveRefund(tx, r, 'submit', {
        now,
        lenient: true,
        set: { ...facts, networkCheckAt: addSeconds(now, deps.config.refundReconcileSeconds) },
      })) ?? (await findRefundById(tx, refundId));
    if (r?.status !== 'processing') return r;
  }
  // A final status resolves a refund held for manual review: the review state is cleared with the move.
  const resolved = { reconciliationState: 'none' as const, reviewReason: null };
  if (read.outcome === 'succeeded')
    return (await moveRefund(tx, r, 'succeed', { now, lenient: true, set: { ...facts, ...resolved } })) ?? r;
  if (read.outcome === 'failed')
    return (
      (await moveRefund(tx, r, 'fail', {
        now,
        lenient: true,
        set: {
          ...facts,
          ...resolved,
          failureReason: read.reason ?? RefundMessages.refusedByNetwork,
        },
      })) ?? r
    );
  if (read.needsReview)
    return (
      (await holdRefundForReview(tx, r, read.needsReview, {
        now,
        nextCheckAt: addSeconds(now, deps.config.refundReviewReconcileSeconds),
        set: facts,
      })) ?? r
    );
  if (r.providerStatus !== read.providerStatus || (read.networkRefundId && !r.networkRefundId))
    await tx
      .update(refunds)
      .set({ ...facts, updatedAt: now })
      .where(and(eq(refunds.id, r.id), eq(refunds.status, 'processing')));
  return r;
}

/**
 * Holds a submitted refund for manual review (RefundNeedsReviewError): a pending one is first
 * `processing` (the network may have it), then held; a terminal one is left alone.
 */
async function holdSubmittedForReview(deps: Deps, refundId: string, reason: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    let r = await findRefundById(tx, refundId);
    if (r?.status === 'pending' && r.submittedAt)
      r = (await moveRefund(tx, r, 'submit', { now, lenient: true })) ?? (await findRefundById(tx, refundId));
    if (r?.status === 'processing')
      await holdRefundForReview(tx, r, reason, {
        now,
        nextCheckAt: addSeconds(now, deps.config.refundReviewReconcileSeconds),
      });
  });
}

/**
 * The submit job: claims the refund (`submitted_at`, compare-and-set while pending), then hands it
 * to the network with our refund id as its reference. A lost answer (BankProviderError) is retried
 * with the same id (the network finds the refund by it); a refusal fails the refund with its reason.
 */
export async function submitRefund(deps: Deps, refundId: string): Promise<void> {
  let r = await findRefundById(deps.db, refundId);
  if (r?.status !== 'pending') return;
  if (!r.submittedAt) {
    const claimed = await markSubmitted(deps.db, r.id, deps.clock.now());
    if (!claimed) {
      r = await findRefundById(deps.db, refundId);
      if (r?.status !== 'pending' || !r.submittedAt) return; // canceled meanwhile
    } else r = claimed;
  }
  const refund = r;
  const network = networkOf(deps);
  const t = await findTransactionById(deps.db, refund.transactionId);
  const payee = t ? await payeeOfProject(deps.db, t.projectId) : null;
  const refuse = (reason: string) =>
    deps.db.transaction((tx) =>
      moveRefund(tx, refund, 'refuse', {
        now: deps.clock.now(),
        lenient: true,
        set: { failureReason: reason },
      }),
    );
  if (!network) return void (await refuse(RefundMessages.networkCannotRefund));
  if (!t || !payee) return void (await refuse(RefundMessages.refusedByNetwork));
  let read: RefundRead;
  try {
    read = await network.initiateRefund({
      refundId: refund.id,
      transactionId: t.id,
      // A network's refundProblem refuses a payment it has no id of at creation; the sandbox bank
      // also knows a payment simulated without a bank choice by its session reference.
      originalTransferId: t.transferId ?? t.refId,
      amount: toCurrencyScale(refund.amount, refund.currency, 'exact'),
      currency: refund.currency,
      // Every other refund of this payment that may have reached the network (succeeded, and the
      // ones still held, this one excluded): the network's remaining amount must not be lower.
      alreadyRefunded: toCurrencyScale(
        sub(add(t.refundedAmount, t.refundHeldAmount), refund.amount),
        refund.currency,
        'exact',
      ),
      description: refund.reason ?? t.description ?? null,
      payee,
    });
  } catch (err) {
    // An earlier attempt may have reached the network and cannot be found: never sent again. The
    // refund is processing (the money may have moved) and held for review; the job ends here.
    if (err instanceof RefundNeedsReviewError)
      return void (await holdSubmittedForReview(deps, refund.id, err.reason));
    if (err instanceof BankRefusedError) return void (await refuse(err.reason));
    // BankProviderError: the outcome is unknown; the job retries with the same refund id.
    throw err;
  }
  await deps.db.transaction((tx) => applyRefundRead(deps, tx, refund.id, read));
}

export const refundSubmitJob = defineJob<{ refundId: string }>({
  kind: 'refunds.submit',
  // A network that stays unreachable: retried with the same reference for about two days.
  maxAttempts: 60,
  run: (deps, { refundId }) => submitRefund(deps, refundId),
  onDead: async (deps, { refundId }, error) => {
    deps.log.error(
      { refundId, error },
      'refund could not be handed to the payment network; check it by hand',
    );
  },
});

/** Reads one refund at the network and applies the answer; returns true when it moved. */
export async function syncRefund(deps: Deps, refundId: string): Promise<boolean> {
  const r = await findRefundById(deps.db, refundId);
  const network = networkOf(deps);
  if (!r || !network || isRefundTerminal(r.status) || !r.submittedAt) return false;
  const t = await findTransactionById(deps.db, r.transactionId);
  const payee = t ? await payeeOfProject(deps.db, t.projectId) : null;
  let read: RefundRead | null;
  try {
    read = await network.getRefund({
      refundId: r.id,
      networkRefundId: r.networkRefundId,
      onBehalfOfId: payee?.subTppId ?? null,
    });
  } catch (err) {
    // The network shows something about this refund that cannot be resolved: held for review.
    if (!(err instanceof RefundNeedsReviewError)) throw err;
    await holdSubmittedForReview(deps, r.id, err.reason);
    return false;
  }
  if (!read) return false;
  const after = await deps.db.transaction((tx) => applyRefundRead(deps, tx, r.id, read));
  return !!after && after.status !== r.status;
}

/** A refund notification is a hint: the refund is read at the network by this job. */
export const refundSyncJob = defineJob<{ refundId: string }>({
  kind: 'refunds.sync',
  run: async (deps, { refundId }) => {
    await syncRefund(deps, refundId);
  },
});

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The bank route's `kind: "refund"` notification (payments.refund_notification), in its transaction. */
export async function onRefundNotification(deps: Deps, tx: Tx, n: BankNotification): Promise<boolean> {
  // The network's refund id first: a network whose reference is shorter than ours (Token.io's
  // 18-character refId) names the refund by a digest of our id, never by our id itself.
  const where = n.transferId
    ? eq(refunds.networkRefundId, n.transferId)
    : UUID_RE.test(n.refId)
      ? eq(refunds.id, n.refId)
      : null;
  const [r] = where
    ? await tx.select({ id: refunds.id, clientId: refunds.clientId }).from(refunds).where(where)
    : [];
  if (!r) {
    deps.log.info(
      { refId: n.refId, networkRefundId: n.transferId },
      'bank notification for an unknown refund',
    );
    return false;
  }
  await enqueueJobId(tx, deps.clock, refundSyncJob, {
    payload: { refundId: r.id },
    dedupeKey: `refund-sync:${r.id}:${n.eventId}`,
    clientId: r.clientId,
  });
  return true;
}

/**
 * The reconciliation sweep: processing refunds due for a read (every SVC_REFUND_RECONCILE_SECONDS)
 * are read at the network; one still processing is read again an interval later, one held for
 * manual review at the slow cadence (SVC_REFUND_REVIEW_RECONCILE_SECONDS).
 */
export async function reconcileRefunds(deps: Deps, batch = 20): Promise<number> {
  const now = deps.clock.now();
  const due = await findDueProcessing(deps.db, now, batch);
  for (const r of due) {
    try {
      await syncRefund(deps, r.id);
    } catch (err) {
      deps.log.warn({ err, refundId: r.id }, 'refund read at the network failed; retrying next interval');
    }
    await scheduleNextCheck(
      deps.db,
      r,
      addSeconds(now, deps.config.refundReconcileSeconds),
      addSeconds(now, deps.config.refundReviewReconcileSeconds),
    );
  }
  return due.length;
}

// ---- sandbox ----

/** POST /sandbox/refunds/{id}/simulate: the sandbox bank reports the outcome, then the refund is read. */
export async function simulateRefundOutcome(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  outcome: 'succeeded' | 'failed',
): Promise<RefundRow> {
  const simulate = deps.providers.bank.refunds?.simulateRefund;
  if (deps.config.environment !== 'sandbox' || !simulate) throw notFound(M.notFound);
  let r = await getRefund(deps, auth.clientId, id);
  if (r.status === 'pending') {
    // Created a moment ago: its submit job (run just after the commit) may not have handed it to the
    // sandbox bank yet. Submitting is idempotent (claimed by compare-and-set), so do it now.
    await submitRefund(deps, r.id).catch((err) =>
      deps.log.warn({ err, refundId: r.id }, 'sandbox refund not submitted yet; its job retries'),
    );
    r = await getRefund(deps, auth.clientId, id);
  }
  if (r.status !== 'processing') throw conflict(RefundMessages.notAllowed(r.status));
  try {
    await simulate.call(deps.providers.bank.refunds, r.id, outcome);
    await syncRefund(deps, r.id);
  } catch (err) {
    deps.log.error({ err, refundId: r.id }, 'sandbox refund simulation failed');
    throw new AppError(503, RefundMessages.paymentNetworkUnavailable);
  }
  return getRefund(deps, auth.clientId, id);
}
