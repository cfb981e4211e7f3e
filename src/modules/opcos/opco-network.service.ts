/**
 * Opcos at a payment network that reviews applications itself (Token.io): staff approval
 * (awaiting_approval) enqueues the `opcos.register_sub_tpp` job in the same commit; the job submits
 * the Sub-TPP registration, and the worker pass below reads the network's review every
 * SVC_TOKENIO_SUBTPP_POLL_SECONDS until it activates the opco (sub_tpp_id set) or rejects it, each
 * with opco.status_changed. Network calls happen outside transactions; claims are SKIP LOCKED with a lease.
 */
import { and, eq, gt, isNotNull } from 'drizzle-orm';
import { opcos } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { defineJob, PermanentJobError } from '../../platform/jobs/index';
import type { SubTppDecision } from '../../providers/subtpp/port';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { applicationOf, applyNetworkDecision, REGISTER_SUB_TPP_JOB } from './opco-review.service';
import { claimDueActivations } from './opcos.repo';
import { applyOpcoTransition } from './opcos.transitions';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

/** Registers an approved opco with the network (idempotent: an earlier registration is adopted). */
export const registerSubTppJob = defineJob<{ opcoId: string }>({
  kind: REGISTER_SUB_TPP_JOB,
  async run(deps, { opcoId }) {
    const network = deps.providers.subTpp;
    if (!network.register) throw new PermanentJobError('This deployment has no reviewing Sub-TPP network');
    const [o] = await deps.db.select().from(opcos).where(eq(opcos.id, opcoId));
    if (!o) throw new PermanentJobError('opco not found');
    if (o.status !== 'awaiting_approval' || o.subTppRegistrationId) return;
    const { registrationId } = await network.register(applicationOf(o));
    await deps.db
      .update(opcos)
      .set({ subTppRegistrationId: registrationId, networkCheckAt: deps.clock.now() })
      .where(and(eq(opcos.id, opcoId), eq(opcos.status, 'awaiting_approval')));
  },
  async onDead(deps, { opcoId }, error) {
    deps.log.error({ opcoId, error }, 'Sub-TPP registration gave up: staff must look at this opco');
  },
});

/** One pass over due reviews; returns how many opcos it looked at. */
export async function followNetworkReviews(deps: D, batch = 20): Promise<number> {
  const network = deps.providers.subTpp;
  if (!network.register) return 0;
  const pollSeconds = deps.providers.bank.reconcile?.subTppPollSeconds ?? 300;
  const now = deps.clock.now();
  const claimed = await deps.db.transaction((tx) =>
    claimDueActivations(tx, now, batch, addSeconds(now, pollSeconds)),
  );
  for (const o of claimed) {
    // Not registered yet: the registration job sets the first review read.
    if (!o.subTppRegistrationId) continue;
    let decision: SubTppDecision;
    try {
      decision = await network.decide(applicationOf(o));
    } catch (err) {
      deps.log.warn(
        { err, opcoId: o.id },
        'Sub-TPP registration or review read failed; retried after the poll interval',
      );
      continue;
    }
    await applyNetworkDecision(deps, o, decision);
  }
  return claimed.length;
}

/**
 * Every activated opco's Sub-TPP, read again (a network may withdraw an approval later: Token.io's
 * `DEACTIVATED`, which no webhook announces). A withdrawn one is deactivated here with the
 * network's reason (opco.status_changed, a critical notification): its projects take no new
 * payment links, which are refused with a clear message. A failed read changes nothing (read again
 * on the next round). Pages through the opcos by id; returns how many it read.
 */
export async function rereadActivatedSubTpps(deps: D, page = 100): Promise<number> {
  const network = deps.providers.subTpp;
  if (!network.recheck) return 0;
  let after = '00000000-0000-0000-0000-000000000000';
  let read = 0;
  for (;;) {
    const rows = await deps.db
      .select()
      .from(opcos)
      .where(and(eq(opcos.status, 'activated'), isNotNull(opcos.subTppId), gt(opcos.id, after)))
      .orderBy(opcos.id)
      .limit(page);
    for (const o of rows) {
      read++;
      let state: Awaited<ReturnType<NonNullable<typeof network.recheck>>>;
      try {
        state = await network.recheck(o.subTppId!);
      } catch (err) {
        deps.log.warn({ err, opcoId: o.id }, 'Sub-TPP re-read failed; read again on the next round');
        continue;
      }
      if (state.active) continue;
      const reason = state.reason;
      try {
        await deps.db.transaction((tx) =>
          applyOpcoTransition(tx, o, 'network_deactivate', { now: deps.clock.now(), reason }),
        );
        deps.log.warn({ opcoId: o.id }, 'the payment network deactivated a Sub-TPP; opco deactivated');
      } catch (err) {
        // Staff moved it meanwhile (compare-and-set lost): theirs stands.
        if (!(err instanceof AppError && err.statusCode === 409)) throw err;
      }
    }
    if (rows.length < page) return read;
    after = rows.at(-1)!.id;
  }
}
