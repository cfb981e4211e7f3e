/**
 * What moves an opco after submit: staff review (approve, reject, deactivate) and the payment
 * network's decision (the sandbox approval simulator, run by the opco activation timer).
 * The network is asked outside any transaction; the result is applied with compare-and-set.
 */

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { defineTimer, enqueueJob, runDueTimers, setTimer, timerRef } from '../../platform/jobs/index';
import type { SubTppApplication, SubTppDecision } from '../../providers/subtpp/port';
import { addSeconds } from '../../shared/clock';
import { AppError, badRequest, conflict, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { PaymentMessages } from '../payments/payments.messages';
import { canApply, type OpcoStatus, type OpcoTransition } from './opcos.machine';
import { findOpcoById, listAllOpcos, type OpcoRow } from './opcos.repo';
import { applyOpcoTransition } from './opcos.transitions';
import { toOpcoView } from './opcos.view';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

/** The job that registers an approved opco with a reviewing network (defined in opco-network.service.ts). */
export const REGISTER_SUB_TPP_JOB = 'opcos.register_sub_tpp';

/** How long a claimed activation stays hidden from other workers before it is retried. */
export const ACTIVATION_LEASE_SECONDS = 60;

export function applicationOf(o: OpcoRow): SubTppApplication {
  return {
    opcoId: o.id,
    clientId: o.clientId,
    name: o.name,
    domain: o.domain,
    countryCode: o.countryCode,
    registrationNumber: o.registrationNumber,
    mcc: o.mcc,
    parentSubTppId: o.parentSubTppId,
    legalEntityName: o.legalEntityName,
    primaryUseCase: o.primaryUseCase,
    settlementIban: o.settlementIban,
    settlementBic: o.settlementBic,
    registrationId: o.subTppRegistrationId,
  };
}

async function askNetwork(deps: D, o: OpcoRow): Promise<SubTppDecision> {
  try {
    return await deps.providers.subTpp.decide(applicationOf(o));
  } catch (err) {
    deps.log.warn({ err, opcoId: o.id }, 'Sub-TPP network call failed');
    throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
  }
}

function refused(action: string, status: string): AppError {
  return badRequest(`Opco in '${status}' status cannot be ${action}`);
}

async function loadAny(deps: Pick<Deps, 'db'>, opcoId: string): Promise<OpcoRow> {
  const o = await findOpcoById(deps.db, opcoId);
  if (!o) throw notFound(M.opcoNotFound);
  return o;
}

/**
 * Staff approve: after review (pending_superadmin_review) the opco goes to the network
 * (awaiting_approval); an opco already with the network is activated at once.
 */
export async function approveOpco(deps: D, opcoId: string, reason: string | null = null) {
  const o = await loadAny(deps, opcoId);
  const status = o.status;
  if (canApply('staff_approve_review', status)) {
    const now = deps.clock.now();
    const sandbox = deps.config.environment === 'sandbox';
    // A network that reviews applications itself (Token.io): the registration is owed from this
    // commit on (a job), and the opco network worker follows the review.
    const reviews = deps.providers.subTpp.register !== undefined;
    const activationDueAt =
      sandbox && !reviews ? addSeconds(now, deps.config.sandboxOpcoActivationSeconds) : null;
    const row = await deps.db.transaction(async (tx) => {
      const moved = await applyOpcoTransition(tx, o, 'staff_approve_review', {
        now,
        reason,
        changes: { activationDueAt },
      });
      if (activationDueAt) await setActivationTimer(tx, deps.clock, o, activationDueAt);
      if (reviews)
        await enqueueJob(
          tx,
          deps.clock,
          { kind: REGISTER_SUB_TPP_JOB },
          {
            payload: { opcoId: o.id },
            dedupeKey: o.id,
            clientId: o.clientId,
          },
        );
      return moved;
    });
    return toOpcoView(row);
  }
  if (!canApply('staff_activate', status)) throw refused('approved', status);
  const decision = await askNetwork(deps, o);
  if (decision.outcome === 'pending') throw conflict(STILL_UNDER_REVIEW);
  if (decision.outcome === 'rejected') {
    throw badRequest(`The payment network refused the Sub-TPP: ${decision.reason}`);
  }
  return toOpcoView(await activate(deps, o, 'staff_activate', decision.subTppId, reason));
}

export async function rejectOpco(deps: D, opcoId: string, reason: string | null = null) {
  const o = await loadAny(deps, opcoId);
  if (!canApply('staff_reject', o.status)) throw refused('rejected', o.status);
  const row = await deps.db.transaction((tx) =>
    applyOpcoTransition(tx, o, 'staff_reject', {
      now: deps.clock.now(),
      reason,
      changes: { activationDueAt: null },
    }),
  );
  return toOpcoView(row);
}

export async function deactivateOpco(deps: D, opcoId: string, reason: string | null = null) {
  const o = await loadAny(deps, opcoId);
  if (!canApply('staff_deactivate', o.status)) throw refused('deactivated', o.status);
  const row = await deps.db.transaction((tx) =>
    applyOpcoTransition(tx, o, 'staff_deactivate', { now: deps.clock.now(), reason }),
  );
  return toOpcoView(row);
}

/** Staff approve of an opco the network still reviews: only the network can activate it. */
export const STILL_UNDER_REVIEW = 'The payment network is still reviewing this Sub-TPP';

async function activate(
  deps: D,
  o: OpcoRow,
  transition: Extract<OpcoTransition, 'staff_activate' | 'network_activate'>,
  subTppId: string,
  reason: string | null,
): Promise<OpcoRow> {
  const now = deps.clock.now();
  return deps.db.transaction((tx) =>
    applyOpcoTransition(tx, o, transition, {
      now,
      reason,
      changes: { subTppId, activatedAt: now, activationDueAt: null },
    }),
  );
}

/**
 * The sandbox approval simulator's timer: set at `activation_due_at` by the transaction that puts
 * an opco with the simulated network (submit, or staff approval), in the same transaction.
 */
export const OPCO_ACTIVATION = timerRef<{ opcoId: string }>({
  kind: 'opcos.sandbox_activation',
  keyOf: (p) => `opco:${p.opcoId}`,
});

export async function setActivationTimer(
  tx: DbOrTx,
  clock: Pick<Deps['clock'], 'now'>,
  o: { id: string; clientId: string },
  runAt: Date,
) {
  await setTimer(tx, clock, OPCO_ACTIVATION, {
    payload: { opcoId: o.id },
    runAt,
    clientId: o.clientId,
  });
}

/**
 * The network's decision on a due opco, asked outside any transaction. A failed call or a decision
 * still pending moves the due time (and the timer) a lease later; staff moving the opco meanwhile
 * makes the timer a no-op. True when the opco was decided.
 */
async function activateIfDue(deps: Deps, opcoId: string): Promise<boolean> {
  const o = await findOpcoById(deps.db, opcoId);
  const now = deps.clock.now();
  if (o?.status !== 'awaiting_approval' || !o.activationDueAt || o.activationDueAt > now) return false;
  let decision: SubTppDecision | null = null;
  try {
    decision = await deps.providers.subTpp.decide(applicationOf(o));
  } catch (err) {
    deps.log.warn({ err, opcoId: o.id }, 'Sub-TPP network call failed; will retry');
  }
  if (!decision || decision.outcome === 'pending') {
    const later = addSeconds(now, ACTIVATION_LEASE_SECONDS);
    await deps.db.transaction(async (tx) => {
      await tx.execute(
        sql`update opcos set activation_due_at = ${later} where id = ${o.id} and status = 'awaiting_approval'`,
      );
      await setActivationTimer(tx, deps.clock, o, later);
    });
    return false;
  }
  await applyNetworkDecision(deps, o, decision);
  return true;
}

export const opcoActivationTimer = defineTimer<{ opcoId: string }>({
  ...OPCO_ACTIVATION,
  label: 'Sandbox opco activation',
  backfill: () => sql`select 'opco:' || id::text as key, jsonb_build_object('opcoId', id::text) as payload,
                       client_id, activation_due_at as run_at
                  from opcos
                 where status = 'awaiting_approval' and activation_due_at is not null`,
  fire: (deps, p) => activateIfDue(deps, p.opcoId),
});

/** Runs the due sandbox activations now (tests, the CLI); returns how many opcos were decided. */
export async function activateDueOpcos(deps: Deps): Promise<number> {
  return runDueTimers(deps, [opcoActivationTimer]);
}

/**
 * The network's decision on an awaiting_approval opco: activated with its Sub-TPP id, or rejected
 * with the reason; pending changes nothing. Staff moving it meanwhile (compare-and-set lost) wins.
 */
export async function applyNetworkDecision(deps: D, o: OpcoRow, decision: SubTppDecision): Promise<void> {
  try {
    if (decision.outcome === 'approved') await activate(deps, o, 'network_activate', decision.subTppId, null);
    else if (decision.outcome === 'rejected')
      await deps.db.transaction((tx) =>
        applyOpcoTransition(tx, o, 'network_reject', {
          now: deps.clock.now(),
          reason: decision.reason,
          changes: { activationDueAt: null, networkCheckAt: null },
        }),
      );
  } catch (err) {
    if (!(err instanceof AppError && err.statusCode === 409)) throw err;
  }
}

/** Staff list over every client (e.g. the review queue). */
export async function listOpcosForStaff(deps: Pick<Deps, 'db'>, page: PageParams, status?: OpcoStatus) {
  const { rows, total } = await listAllOpcos(deps.db, page, status);
  return { opcos: rows.map(toOpcoView), pagination: paginationMeta(total, page) };
}
