/**
 * POST /recurring-payments/{definition_id}/retry (docs/guides/recurring.md): looks at
 * the target run's latest attempt N. N failed -> attempt N+1 with retry_of_attempt = N; the unique
 * (run_id, retry_of_attempt) index lets exactly one of any number of concurrent calls (and the
 * automatic retry) create it, the others answer `replayed: true`. N itself a retry still processing or
 * succeeded -> nothing new, `replayed: true`. So a repeated call never charges twice.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type Tx } from '../../db/client';
import { recurringRuns, transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { runIdempotent } from '../../platform/idempotency';
import type { ClientAuth } from '../../plugins/auth';
import { badRequest, conflict, notFound } from '../../shared/errors';
import { assertFeatureEnabled } from '../features/features.service';
import { actorOf } from '../payments/paylink.service';
import { assertRecurringWritable } from './recurring.machine';
import { RecurringMessages } from './recurring.messages';
import { findDefinitionById, findRun, latestAttempt, type RunRow } from './recurring.repo';
import { getRun } from './recurring.service';
import {
  insertAttempt,
  launchAttempt,
  mandateChargeable,
  startRun,
  withinLimits,
} from './recurring-attempts.service';

type Outcome = { kind: 'created'; runId: string; attemptId: string } | { kind: 'replayed'; runId: string };

/** The run a call without run_id targets: the latest failed or retry_scheduled run, else one to replay. */
async function defaultTarget(deps: Deps, definitionId: string): Promise<RunRow> {
  const [open] = await deps.db
    .select()
    .from(recurringRuns)
    .where(
      and(
        eq(recurringRuns.definitionId, definitionId),
        inArray(recurringRuns.status, ['failed', 'retry_scheduled']),
      ),
    )
    .orderBy(desc(recurringRuns.sequence))
    .limit(1);
  if (open) return open;
  // No failed run: the latest run whose latest attempt is a manual retry can still be replayed.
  const res = await deps.db.execute(sql`
    select r.id from recurring_runs r
     where r.definition_id = ${definitionId}::uuid
       and (select a.trigger from recurring_attempts a where a.run_id = r.id
             order by a.attempt_number desc limit 1) = 'manual_retry'
     order by r.sequence desc limit 1`);
  const id = rowsOf<{ id: string }>(res)[0]?.id;
  const r = id ? await findRun(deps.db, definitionId, id) : null;
  if (!r) throw badRequest(RecurringMessages.noFailedRun);
  return r;
}

async function heldForReview(tx: Tx, transactionId: string | null): Promise<boolean> {
  if (!transactionId) return false;
  const [t] = await tx
    .select({ state: transactions.reconciliationState })
    .from(transactions)
    .where(eq(transactions.id, transactionId));
  return t?.state === 'manual_review_required';
}

async function retryOnce(
  deps: Deps,
  auth: ClientAuth,
  definitionId: string,
  runId?: string,
): Promise<Outcome> {
  const d0 = await findDefinitionById(deps.db, definitionId);
  if (!d0 || d0.clientId !== auth.clientId) throw notFound(RecurringMessages.notFound);
  assertRecurringWritable(d0.status);
  if (d0.mandateStatus !== 'authorized') throw badRequest(RecurringMessages.mandateNotAuthorized);
  const target = runId
    ? await findRun(deps.db, definitionId, runId)
    : await defaultTarget(deps, definitionId);
  if (!target) throw notFound(RecurringMessages.runNotFound);
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    // Lock order of the module: definition -> attempt -> run (the worker and listeners do the same).
    const d = (await findDefinitionById(tx, definitionId, true))!;
    assertRecurringWritable(d.status);
    if (!mandateChargeable(d, now)) throw badRequest(RecurringMessages.mandateNotAuthorized);
    const n = await latestAttempt(tx, target.id);
    if (!n) throw badRequest(RecurringMessages.onlyFailedRuns);
    // A payment the bank gave no final status for may have been made: a new one under the same
    // consent could charge the payer twice, so no retry while it is held for review.
    if (await heldForReview(tx, n.transactionId)) throw conflict(RecurringMessages.outcomeUnknown);
    if (n.outcome !== 'failed') {
      if (n.retryOfAttempt !== null) return { kind: 'replayed', runId: target.id } as const;
      throw badRequest(RecurringMessages.onlyFailedRuns);
    }
    const [{ c } = { c: 0 }] = rowsOf<{ c: number }>(
      await tx.execute(
        sql`select count(*)::int as c from recurring_attempts where run_id = ${target.id}::uuid`,
      ),
    );
    if (c >= deps.config.recurringMaxAttempts) throw badRequest(RecurringMessages.maxAttempts);
    // The winner of (run, retry_of_attempt = N); a loser sees the conflict and replays.
    const a = await insertAttempt(tx, target.id, n.attemptNumber + 1, 'manual_retry', n.attemptNumber, now);
    if (!a) return { kind: 'replayed', runId: target.id } as const;
    const r = (await findRun(tx, definitionId, target.id, true))!;
    if (!(await withinLimits(tx, d, r.id, r.amount, now))) throw badRequest(RecurringMessages.exceedsLimits);
    await startRun(tx, d, r, 'manual_retry', now);
    return { kind: 'created', runId: r.id, attemptId: a.id } as const;
  });
}

export async function retryRun(
  deps: Deps,
  auth: ClientAuth,
  definitionId: string,
  header: string | string[] | undefined,
  body: { run_id?: string },
): Promise<{ status: 200 | 202; body: Awaited<ReturnType<typeof getRun>> & { replayed: boolean } }> {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'recurring_payments');
  const res = await runIdempotent(
    deps,
    {
      clientId: auth.clientId,
      scope: `recurring_payments.retry:${definitionId}`,
      header,
      required: false,
      payload: body,
    },
    async (commit) => {
      const out = await retryOnce(deps, auth, definitionId, body.run_id);
      if (out.kind === 'created') await launchAttempt(deps, out.attemptId, actorOf(auth));
      const run = await getRun(deps, auth.clientId, definitionId, out.runId);
      const status = out.kind === 'created' ? 202 : 200;
      const dto = { ...run, replayed: out.kind === 'replayed' };
      await commit(deps.db, dto, status);
      return { body: dto, status };
    },
  );
  if (res.replayed) return { status: 200, body: { ...res.body, replayed: true } };
  return { status: res.status as 200 | 202, body: res.body };
}
