/**
 * The recurring-payments worker. Every timer is a column with a due time on the injected clock,
 * claimed with FOR UPDATE SKIP LOCKED: runs due (`scheduled_for`), automatic retries
 * (`next_retry_at`), attempt launches (`launch_due_at`, also the lease that survives a crash),
 * authorization links (`authorization_expires_at`), pauses (`paused_until`), mandates (`valid_to`)
 * and revocations at the bank (`mandate_revoke_due_at`). Provider calls happen outside transactions.
 */
import { and, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { type RecurringRunStatus, recurringPayments, recurringRuns } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { AUTOMATIC } from '../payments/status.service';
import { canApplyRecurring, type MandateStatus, type RecurringTrigger } from './recurring.machine';
import { type DefinitionRow, findRunById, latestAttempt, type RunRow } from './recurring.repo';
import { resumeDefinition } from './recurring.service';
import { moveDefinition, moveRun } from './recurring.transitions';
import {
  claimDueLaunches,
  failAttempt,
  insertAttempt,
  launchAttempt,
  mandateChargeable,
  startRun,
  withinLimits,
} from './recurring-attempts.service';

/** Locks definition then run (the module's lock order); null when another worker holds them. */
async function lockPair(tx: Tx, runId: string): Promise<{ d: DefinitionRow; r: RunRow } | null> {
  const r0 = await findRunById(tx, runId);
  if (!r0) return null;
  const [d] = await tx
    .select()
    .from(recurringPayments)
    .where(eq(recurringPayments.id, r0.definitionId))
    .for('update', { skipLocked: true });
  if (!d) return null;
  const r = await findRunById(tx, runId, true);
  return r ? { d, r } : null;
}

/**
 * Starts one scheduled run (when due, or now for `run-next`): skipped while paused, failed with
 * mandate_limit_exceeded and no transaction when over the limits, else attempt 1. Returns the attempt
 * to launch, true when the run moved without one, null when nothing happened. Exactly once: the run's status is re-read under its lock.
 */
export async function startScheduledRun(
  deps: Deps,
  runId: string,
  force = false,
): Promise<string | true | null> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const p = await lockPair(tx, runId);
    if (!p) return null;
    const { d, r } = p;
    if (r.status !== 'scheduled' || (!force && r.scheduledFor > now)) return null;
    if (d.status === 'paused') {
      await moveRun(tx, d, r, 'skip', now);
      return true;
    }
    if (d.status !== 'active' || !mandateChargeable(d, now)) return null;
    if (!(await withinLimits(tx, d, r.id, r.amount, now))) {
      await moveRun(tx, d, r, 'limit_exceeded', now, {
        failureReason: 'mandate_limit_exceeded',
        willRetry: false,
      });
      return true;
    }
    const a = await insertAttempt(tx, r.id, 1, 'schedule', null, now);
    if (!a) return null;
    await startRun(tx, d, r, 'start', now);
    return a.id;
  });
}

/** One automatic retry (when due, or now for `run-next`); a retry over the limits fails right away. */
export async function startAutoRetry(
  deps: Deps,
  runId: string,
  force = false,
): Promise<string | true | null> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const p = await lockPair(tx, runId);
    if (!p) return null;
    const { d, r } = p;
    if (r.status !== 'retry_scheduled' || (!force && (r.nextRetryAt ?? now) > now)) return null;
    // Paused: the retry waits for resume; past valid_to: the expiry sweep cancels it.
    if (d.status !== 'active' || !mandateChargeable(d, now)) return null;
    const n = await latestAttempt(tx, r.id);
    if (!n) return null;
    if (n.outcome !== 'failed') return null;
    const a = await insertAttempt(tx, r.id, n.attemptNumber + 1, 'auto_retry', n.attemptNumber, now);
    if (!a) return null; // a manual retry of the same attempt won
    const moved = await startRun(tx, d, r, 'auto_retry', now);
    if (!(await withinLimits(tx, d, r.id, r.amount, now))) {
      await failAttempt(deps, tx, d, moved, a, 'mandate_limit_exceeded', now);
      return true;
    }
    return a.id;
  });
}

async function dueIds(
  deps: Deps,
  status: RecurringRunStatus,
  column: 'scheduled_for' | 'next_retry_at',
  limit: number,
) {
  const now = deps.clock.now();
  const rows = await deps.db
    .select({ id: recurringRuns.id })
    .from(recurringRuns)
    .where(and(eq(recurringRuns.status, status), lte(sql.raw(`recurring_runs.${column}`), now)))
    .orderBy(sql.raw(`recurring_runs.${column}`))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Moves definitions whose timer column is due (each in its own transaction, SKIP LOCKED). */
async function sweepDefinitions(
  deps: Deps,
  where: ReturnType<typeof and>,
  act: (tx: Tx, d: DefinitionRow, now: Date) => Promise<unknown>,
  limit = 50,
): Promise<number> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(recurringPayments)
      .where(where)
      .limit(limit)
      .for('update', { skipLocked: true });
    for (const d of due) await act(tx, d, now);
    return due.length;
  });
}

const expireWith =
  (trigger: RecurringTrigger, reason: string, mandateStatus: MandateStatus) =>
  async (tx: Tx, d: DefinitionRow, now: Date) => {
    if (canApplyRecurring(trigger, d.status))
      await moveDefinition(tx, d, trigger, now, AUTOMATIC, { statusReason: reason, mandateStatus });
  };

export async function runRecurringWorker(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  let did = 0;
  did += await sweepDefinitions(
    deps,
    and(
      eq(recurringPayments.status, 'pending_authorization'),
      lte(recurringPayments.authorizationExpiresAt, now),
    ),
    expireWith('authorization_expire', 'authorization_link_expired', 'expired'),
  );
  did += await sweepDefinitions(
    deps,
    and(inArray(recurringPayments.status, ['active', 'paused']), lte(recurringPayments.validTo, now)),
    expireWith('expire', 'mandate_valid_to_passed', 'expired'),
  );
  // Started attempts carry a due launch timer, launched just below (or by any other worker).
  for (const id of await dueIds(deps, 'scheduled', 'scheduled_for', 20))
    if (await startScheduledRun(deps, id)) did++;
  for (const id of await dueIds(deps, 'retry_scheduled', 'next_retry_at', 20))
    if (await startAutoRetry(deps, id)) did++;
  // After the due runs: a run that fell due while paused is skipped before the pause ends.
  did += await sweepDefinitions(
    deps,
    and(eq(recurringPayments.status, 'paused'), lte(recurringPayments.pausedUntil, now)),
    (tx, d, at) => resumeDefinition(tx, d, at, AUTOMATIC),
  );
  for (const id of await claimDueLaunches(deps)) {
    await launchAttempt(deps, id);
    did++;
  }
  did += await revokeDueMandates(deps);
  const network = deps.providers.bank.mandates;
  if (network?.settleDueMandatePayments) did += await network.settleDueMandatePayments();
  return did;
}

/** Revokes mandates at the bank after cancel/complete (outside transactions; retried each tick). */
async function revokeDueMandates(deps: Deps, limit = 20): Promise<number> {
  const network = deps.providers.bank.mandates;
  if (!network) return 0;
  const now = deps.clock.now();
  const due = await deps.db
    .select({ id: recurringPayments.id, ref: recurringPayments.mandateRef })
    .from(recurringPayments)
    .where(
      and(isNotNull(recurringPayments.mandateRevokeDueAt), lte(recurringPayments.mandateRevokeDueAt, now)),
    )
    .limit(limit);
  for (const d of due) {
    try {
      if (d.ref) await network.revokeMandate(d.ref);
      await deps.db
        .update(recurringPayments)
        .set({ mandateRevokeDueAt: null })
        .where(eq(recurringPayments.id, d.id));
    } catch (err) {
      deps.log.warn({ err, definitionId: d.id }, 'mandate revocation failed; retrying');
      await deps.db
        .update(recurringPayments)
        .set({ mandateRevokeDueAt: new Date(now.getTime() + 60_000) })
        .where(eq(recurringPayments.id, d.id));
    }
  }
  return due.length;
}
