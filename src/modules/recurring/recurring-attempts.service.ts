/**
 * Attempts: each is recorded in the transaction that moves its run to `processing` (with a launch
 * timer), then launched outside any transaction: the platform payment link (key
 * `recurring:<run_id>:<attempt>`, origin {type: "recurring"}) and the mandate payment at the bank.
 * A crash in between leaves the timer due, and the worker launches again; the derived key and the
 * bank's per-session idempotency make the relaunch create nothing twice. Outcomes arrive through the
 * bank notification path (recurring.listeners.ts).
 */
import { and, eq, sql } from 'drizzle-orm';
import { rowsOf, type Tx } from '../../db/client';
import { recurringAttempts, recurringRuns } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { BankOutcomeUnknownError, BankProviderError, BankRefusedError } from '../../providers/bank/port';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { recordNetworkAnswer, scheduleNetworkCheck } from '../payments/network-sync.service';
import { payeeOfProject } from '../payments/payee.repo';
import { createPlatformPaymentLink } from '../payments/paylink.service';
import { type Actor, AUTOMATIC, holdForReview } from '../payments/status.service';
import {
  type AttemptRow,
  type DefinitionRow,
  findDefinitionById,
  findRunById,
  type RunRow,
} from './recurring.repo';
import { moveRun } from './recurring.transitions';
import { fitsMandateLimits, type Period } from './recurring-limits.service';
import { autoRetryDelayHours, type FailureReason, type RunTrigger } from './runs.machine';

const LINK_LIFETIME_SECONDS = 7 * 86400;

export type AttemptTrigger = 'schedule' | 'on_demand' | 'auto_retry' | 'manual_retry';

export function limitCheckOf(d: DefinitionRow, runId: string | null, amount: string, at: Date) {
  return {
    definitionId: d.id,
    maxAmountPerPayment: d.maxAmountPerPayment,
    periodicAmount: d.periodicAmount,
    period: d.period as Period,
    alignment: d.alignment as 'calendar' | 'consent',
    validFrom: d.validFrom,
    runId,
    amount,
    at,
  };
}

/**
 * Whether the mandate can be charged at `at`: authorized and before its `valid_to` (the expiry sweep
 * may not have moved the definition yet).
 */
export function mandateChargeable(d: DefinitionRow, at: Date): boolean {
  return d.mandateStatus === 'authorized' && (d.validTo === null || d.validTo > at);
}

/** Whether `amount` fits the mandate now (the caller holds the definition's row lock). */
export function withinLimits(tx: Tx, d: DefinitionRow, runId: string | null, amount: string, at: Date) {
  return fitsMandateLimits(tx, limitCheckOf(d, runId, amount, at));
}

/**
 * Inserts attempt N+1 of a run (retry_of_attempt = N for retries). Null when another caller already
 * made the attempt retrying N (the unique (run_id, retry_of_attempt) index).
 */
export async function insertAttempt(
  tx: Tx,
  runId: string,
  attemptNumber: number,
  trigger: AttemptTrigger,
  retryOf: number | null,
  at: Date,
): Promise<AttemptRow | null> {
  const [a] = await tx
    .insert(recurringAttempts)
    .values({
      runId,
      attemptNumber,
      trigger,
      retryOfAttempt: retryOf,
      startedAt: at,
      launchDueAt: at,
    })
    .onConflictDoNothing()
    .returning();
  return a ?? null;
}

/** Moves a run into `processing` with its new attempt (already inserted). */
export async function startRun(
  tx: Tx,
  d: DefinitionRow,
  r: RunRow,
  trigger: Extract<RunTrigger, 'start' | 'auto_retry' | 'manual_retry'>,
  at: Date,
): Promise<RunRow> {
  const moved = await moveRun(tx, d, r, trigger, at, {
    transactionId: null,
    failureReason: null,
    willRetry: false,
    nextRetryAt: null,
    ...(trigger === 'auto_retry' ? { autoRetries: r.autoRetries + 1 } : {}),
  });
  if (!moved) throw new AppError(409, 'The run changed meanwhile; try again');
  return moved;
}

/** Attempt outcome on a failure: retry_scheduled when the rules allow an automatic retry, else failed. */
export async function failAttempt(
  deps: Deps,
  tx: Tx,
  d: DefinitionRow,
  r: RunRow,
  a: AttemptRow,
  reason: FailureReason,
  at: Date,
  /** false: never retried automatically (the payment may have moved money: it is held for review). */
  retry = true,
): Promise<RunRow | null> {
  await tx
    .update(recurringAttempts)
    .set({ outcome: 'failed', failureReason: reason, finishedAt: at, launchDueAt: null })
    .where(eq(recurringAttempts.id, a.id));
  if (r.status !== 'processing') return null;
  const [{ n } = { n: 0 }] = rowsOf<{ n: number }>(
    await tx.execute(sql`select count(*)::int as n from recurring_attempts where run_id = ${r.id}::uuid`),
  );
  const delay =
    retry && ['active', 'paused'].includes(d.status)
      ? autoRetryDelayHours({
          reason,
          autoRetry: d.retryPolicy.auto_retry,
          retryAfterHours: d.retryPolicy.retry_after_hours,
          autoRetriesUsed: r.autoRetries,
          attemptsSoFar: n,
          maxAttempts: deps.config.recurringMaxAttempts,
        })
      : null;
  if (delay !== null)
    return moveRun(tx, d, r, 'schedule_retry', at, {
      failureReason: reason,
      willRetry: true,
      nextRetryAt: addSeconds(at, delay * 3600),
    });
  return moveRun(tx, d, r, 'fail', at, { failureReason: reason, willRetry: false, nextRetryAt: null });
}

/** Why a recurring payment is held when its creation's answer was lost and the network cannot find it. */
export const HELD_UNKNOWN_OUTCOME =
  'The bank’s answer to the payment was lost and the payment network cannot find it yet: it may have been made, so it is not sent again; held for manual review';

/**
 * Claims attempts whose launch is due (new ones, or ones a crash left half-launched). The lease is the
 * idempotency stale period: a relaunch before it would find the paylink key still in flight.
 */
export async function claimDueLaunches(deps: Deps, limit = 20): Promise<string[]> {
  const now = deps.clock.now();
  const res = await deps.db.execute(sql`
    update recurring_attempts a
       set launch_due_at = ${addSeconds(now, deps.config.idempotencyStaleSeconds).toISOString()}::timestamptz
      from (select id from recurring_attempts
             where launch_due_at <= ${now.toISOString()}::timestamptz
             order by launch_due_at limit ${limit}
             for update skip locked) c
     where a.id = c.id
    returning a.id`);
  return rowsOf<{ id: string }>(res).map((r) => r.id);
}

/**
 * Launches one attempt: the platform transaction, then the mandate payment at the bank. Safe to call
 * again after a crash at any point. A refusal of the paylink rules (frozen project, …) fails the attempt.
 */
export async function launchAttempt(deps: Deps, attemptId: string, actor: Actor = AUTOMATIC): Promise<void> {
  const [a] = await deps.db.select().from(recurringAttempts).where(eq(recurringAttempts.id, attemptId));
  if (!a || a.outcome !== null) return;
  const r = await findRunById(deps.db, a.runId);
  const d = r ? await findDefinitionById(deps.db, r.definitionId) : null;
  if (!r || !d) return;
  const network = deps.providers.bank.mandates;
  let transactionId = a.transactionId;
  try {
    if (!network || !d.mandateRef) throw new AppError(503, 'Bank provider is not configured');
    const { transaction: t } = await createPlatformPaymentLink(deps, {
      clientId: d.clientId,
      actor,
      key: `recurring:${r.id}:${a.attemptNumber}`,
      body: {
        amount: r.amount,
        currency: r.currency,
        project_id: d.projectId,
        ...(d.userId ? { user_id: d.userId } : { business_customer_id: d.businessCustomerId! }),
        description: r.description ?? d.description ?? undefined,
        expires_in_seconds: LINK_LIFETIME_SECONDS,
        metadata: { definition_id: d.id, run_id: r.id, attempt_number: String(a.attemptNumber) },
      },
      origin: { type: 'recurring', id: d.id },
    });
    transactionId = t.id;
    if (a.transactionId !== t.id) {
      await deps.db.transaction(async (tx) => {
        await tx.update(recurringAttempts).set({ transactionId: t.id }).where(eq(recurringAttempts.id, a.id));
        await tx
          .update(recurringRuns)
          .set({ transactionId: t.id, updatedAt: deps.clock.now() })
          .where(and(eq(recurringRuns.id, r.id), eq(recurringRuns.status, 'processing')));
      });
    }
    const payee = await payeeOfProject(deps.db, d.projectId);
    // The "sent" marker, committed on its own before the send: a relaunch (crash, lease expiry, an
    // error after the send) that finds it set never sends again when the look-up finds nothing.
    const sentBefore = a.networkSentAt !== null;
    if (!sentBefore)
      await deps.db
        .update(recurringAttempts)
        .set({ networkSentAt: deps.clock.now() })
        .where(eq(recurringAttempts.id, a.id));
    const answer = await network.initiateMandatePayment({
      sentBefore,
      refId: t.refId,
      mandateRef: d.mandateRef,
      amount: r.amount,
      currency: r.currency,
      attemptNumber: a.attemptNumber,
      payee: payee ?? { name: '', iban: '', bic: null, subTppId: null },
    });
    if (answer) await recordNetworkAnswer(deps, t.id, answer);
    await deps.db
      .update(recurringAttempts)
      .set({ launchDueAt: null, launchError: null })
      .where(and(eq(recurringAttempts.id, a.id), sql`${recurringAttempts.outcome} is null`));
  } catch (err) {
    if (err instanceof BankOutcomeUnknownError && transactionId) {
      // The network may hold the payment although it cannot be found: never launched again. The
      // payment is held for manual review and read by its reference on the reconciliation cadence;
      // a late answer moves it (and the run) as any other; an expiry keeps it held (no retry).
      const now = deps.clock.now();
      const heldId = transactionId;
      deps.log.error(
        { attemptId, transactionId: heldId, networkTraceId: err.traceId },
        'recurring payment creation outcome unknown and not found; held for manual review, not sent again',
      );
      await deps.db.transaction(async (tx) => {
        await holdForReview(tx, heldId, HELD_UNKNOWN_OUTCOME, {
          occurredAt: now,
          now,
          actor: AUTOMATIC,
          events: deps.events,
          networkTrace: err.traceId,
        });
        await tx
          .update(recurringAttempts)
          .set({ launchDueAt: null, launchError: HELD_UNKNOWN_OUTCOME })
          .where(and(eq(recurringAttempts.id, a.id), sql`${recurringAttempts.outcome} is null`));
        await scheduleNetworkCheck(
          tx,
          heldId,
          deps.providers.bank.reconcile?.payments.afterSeconds ?? 300,
          now,
        );
      });
      return;
    }
    const refused = err instanceof BankRefusedError;
    if (refused || (err instanceof AppError && err.statusCode < 500 && err.statusCode !== 409)) {
      // The payment cannot be made at all (the paylink rules refused it): a non-retryable failure.
      await deps.db.transaction(async (tx) => {
        const def = await findDefinitionById(tx, d.id, true);
        const run = await findRunById(tx, r.id, true);
        const [att] = await tx
          .select()
          .from(recurringAttempts)
          .where(eq(recurringAttempts.id, a.id))
          .for('update');
        if (def && run && att && att.outcome === null) {
          await tx
            .update(recurringAttempts)
            .set({ launchError: refused ? err.reason : (err as AppError).detail })
            .where(eq(recurringAttempts.id, a.id));
          await failAttempt(deps, tx, def, run, att, 'bank_rejected', deps.clock.now());
        }
      });
      return;
    }
    deps.log.warn({ err, attemptId }, 'recurring attempt launch failed; the worker retries it');
    // The network certainly did not act on the send: the relaunch may send it again.
    const notSent = err instanceof BankProviderError && err.notSent;
    await deps.db
      .update(recurringAttempts)
      .set({
        ...(notSent ? { networkSentAt: null } : {}),
        launchDueAt: addSeconds(deps.clock.now(), 60),
        launchError: String((err as Error).message ?? err),
      })
      .where(eq(recurringAttempts.id, a.id));
  }
}
