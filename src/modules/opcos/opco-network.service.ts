/**
 * Opcos at a payment network that reviews applications itself (Token.io): after staff approval
 * (awaiting_approval, network_check_at set in the same commit) this worker pass submits the
 * Sub-TPP registration once, then reads the network's review every SVC_TOKENIO_SUBTPP_POLL_SECONDS
 * until it activates the opco (sub_tpp_id set) or rejects it, each with opco.status_changed.
 * Network calls happen outside transactions; claims are SKIP LOCKED with a lease.
 */
import { and, eq } from 'drizzle-orm';
import { opcos } from '../../db/schema/index';
import type { Deps } from '../../deps';
import type { SubTppDecision } from '../../providers/subtpp/port';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { activate, applicationOf } from './opco-review.service';
import { claimDueActivations } from './opcos.repo';
import { applyOpcoTransition } from './opcos.transitions';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

/** One pass; returns how many opcos it looked at. */
export async function followNetworkReviews(deps: D, batch = 20): Promise<number> {
  const network = deps.providers.subTpp;
  if (!network.register) return 0;
  const pollSeconds = deps.config.tokenio?.subTppPollSeconds ?? 300;
  const now = deps.clock.now();
  const claimed = await deps.db.transaction((tx) =>
    claimDueActivations(tx, now, batch, addSeconds(now, pollSeconds), 'networkCheckAt'),
  );
  for (let o of claimed) {
    let decision: SubTppDecision;
    try {
      if (!o.subTppRegistrationId) {
        const { registrationId } = await network.register(applicationOf(o));
        const [row] = await deps.db
          .update(opcos)
          .set({ subTppRegistrationId: registrationId })
          .where(and(eq(opcos.id, o.id), eq(opcos.status, 'awaiting_approval')))
          .returning();
        if (!row) continue;
        o = row;
      }
      decision = await network.decide(applicationOf(o));
    } catch (err) {
      deps.log.warn(
        { err, opcoId: o.id },
        'Sub-TPP registration or review read failed; retried after the poll interval',
      );
      continue;
    }
    try {
      if (decision.outcome === 'approved')
        await activate(deps, o, 'network_activate', decision.subTppId, null);
      else if (decision.outcome === 'rejected')
        await deps.db.transaction((tx) =>
          applyOpcoTransition(tx, o, 'network_reject', {
            now: deps.clock.now(),
            reason: decision.reason,
            changes: { networkCheckAt: null },
          }),
        );
    } catch (err) {
      // Staff moved it meanwhile (compare-and-set lost): nothing to do.
      if (!(err instanceof AppError && err.statusCode === 409)) throw err;
    }
  }
  return claimed.length;
}
