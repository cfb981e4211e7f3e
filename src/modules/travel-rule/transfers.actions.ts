/** Transfer actions of the client API: repair (PATCH), tx hash, proceed, inbound accept/reject, cancel. */
import type { DbOrTx } from '../../db/client';
import { enqueueJob } from '../../platform/jobs/index';
import type { ClientAuth } from '../../plugins/auth';
import { badRequest, notFound } from '../../shared/errors';
import { assertFeatureEnabled } from '../features/features.service';
import { sendTo } from './dispatch';
import { checkParties, type Party, screenOutboundParties } from './parties';
import { actorOf, assertNetworkConfigured, type D, getTransfer } from './transfers.service';
import { ANSWER_INBOUND_JOB } from './travel-rule.jobs';
import { allows, moveTransfer, type TransferRow, type Trigger } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';
import { findTransfer, updateTransfer } from './travel-rule.repo';

async function prepare(deps: D, auth: ClientAuth) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'travel_rule');
  assertNetworkConfigured(deps);
}

async function locked(tx: DbOrTx, clientId: string, id: string) {
  const t = await findTransfer(tx, clientId, id, true);
  if (!t) throw notFound(TravelRuleMessages.transferNotFound);
  return t;
}

/** Moves by `trigger` in one transaction (400 when the state does not allow it); `after` runs inside. */
async function act(
  deps: D,
  auth: ClientAuth,
  id: string,
  trigger: Trigger,
  set: (t: TransferRow) => Partial<TransferRow>,
  check?: (t: TransferRow) => void,
) {
  await prepare(deps, auth);
  const moved = await deps.db.transaction(async (tx) => {
    const t = await locked(tx, auth.clientId, id);
    check?.(t);
    const r = await moveTransfer(tx, t, trigger, {
      now: deps.clock.now(),
      actor: actorOf(auth),
      set: set(t),
    });
    if (!r) throw badRequest(TravelRuleMessages.badState(t.status));
    return { before: t, after: r };
  });
  return moved;
}

/**
 * PATCH in needs_repair: new party data, sent again to the same VASP (awaiting_counterparty). The
 * repaired parties' names are screened against the sanctions lists again, as at creation (outside the
 * transaction; lists that cannot answer: 503 and nothing stored), and the hits stored with the parties.
 */
export async function repairTransfer(
  deps: D,
  auth: ClientAuth,
  id: string,
  input: { originator?: Party; beneficiary?: Party },
) {
  await prepare(deps, auth);
  const t = await findTransfer(deps.db, auth.clientId, id);
  if (!t) throw notFound(TravelRuleMessages.transferNotFound);
  if (!allows('repaired', t.status) || !t.beneficiaryVasp)
    throw badRequest(TravelRuleMessages.badState(t.status));
  checkParties(input);
  const vasp = (await deps.providers.travelRule.directory()).find(
    (v) => v.vasp_id === t.beneficiaryVasp!.vasp_id,
  );
  if (!vasp) throw notFound(TravelRuleMessages.vaspNotFound);
  // The parties as they will be stored: the ones screened are the ones kept (a concurrent repair's
  // party this PATCH does not name is replaced by the one read here: the last repair wins whole).
  const originator = input.originator ?? t.originator;
  const beneficiary = input.beneficiary ?? t.beneficiary;
  const screened = await screenOutboundParties(deps, [originator, beneficiary], id);
  const updated = await deps.db.transaction(async (tx) => {
    const cur = await locked(tx, auth.clientId, id);
    if (!allows('repaired', cur.status)) throw badRequest(TravelRuleMessages.badState(cur.status));
    return updateTransfer(tx, id, {
      originator,
      beneficiary,
      ...screened,
      updatedAt: deps.clock.now(),
    });
  });
  try {
    await sendTo(deps, updated, vasp, 'repaired');
  } catch (err) {
    // The corrected data is kept; the transfer stays in needs_repair so the client can PATCH again.
    deps.log.error({ err, transferId: id }, 'travel-rule re-send after repair failed');
  }
  return getTransfer(deps, auth.clientId, id);
}

export async function submitTxHash(deps: D, auth: ClientAuth, id: string, txHash: string) {
  const { after } = await act(deps, auth, id, 'tx_hash', () => ({ txHash }));
  // A network whose beneficiary VASP expects the hash (TRP's transfer confirmation) is told.
  const net = deps.providers.travelRule;
  if (net.confirm && after.direction === 'outbound' && after.counterpartyCallback)
    try {
      await net.confirm(after.id, after.counterpartyCallback, txHash);
    } catch (err) {
      deps.log.error({ err, transferId: id }, 'reporting the transaction to the beneficiary VASP failed');
    }
  return getTransfer(deps, auth.clientId, id);
}

export async function proceedTransfer(deps: D, auth: ClientAuth, id: string, justification: string) {
  await act(deps, auth, id, 'proceed', () => ({ statusReason: TravelRuleMessages.proceeded, justification }));
  return getTransfer(deps, auth.clientId, id);
}

/** Inbound `awaiting_review` only; the answer goes back to the originator VASP. */
export async function reviewTransfer(
  deps: D,
  auth: ClientAuth,
  id: string,
  answer: 'accepted' | 'rejected',
  reason: string | null,
) {
  const inboundOnly = (t: TransferRow) => {
    if (t.direction !== 'inbound') throw badRequest(TravelRuleMessages.badState(t.status));
  };
  const { after } = await act(
    deps,
    auth,
    id,
    answer === 'accepted' ? 'review_accept' : 'review_reject',
    () => (answer === 'rejected' ? { statusReason: reason } : {}),
    inboundOnly,
  );
  const ctx = { transferId: after.id, address: after.counterpartyAddress };
  try {
    await deps.providers.travelRule.respond(after.networkRef!, answer, reason, ctx);
  } catch (err) {
    deps.log.error({ err, transferId: id }, 'travel-rule answer to the originator VASP failed');
    // A network that retries gets the answer again from a job (the decision is already kept).
    if (deps.providers.travelRule.retry)
      await enqueueJob(
        deps.db,
        deps.clock,
        { kind: ANSWER_INBOUND_JOB },
        {
          payload: { networkRef: after.networkRef!, answer, reason, ...ctx },
          dedupeKey: `${after.id}:answer`,
          clientId: after.clientId,
        },
      );
  }
  return getTransfer(deps, auth.clientId, id);
}

/** Any non-terminal status; a counterparty that has the data is told. */
export async function cancelTransfer(deps: D, auth: ClientAuth, id: string) {
  const { before } = await act(deps, auth, id, 'cancel', () => ({
    statusReason: TravelRuleMessages.canceled,
  }));
  try {
    if (before.direction === 'inbound' && before.networkRef)
      await deps.providers.travelRule.respond(before.networkRef, 'rejected', TravelRuleMessages.canceled);
    else if (before.beneficiaryVasp)
      await deps.providers.travelRule.cancel(
        before.id,
        before.beneficiaryVasp.vasp_id,
        before.counterpartyCallback,
      );
  } catch (err) {
    deps.log.error({ err, transferId: id }, 'telling the counterparty about a cancel failed');
  }
  return getTransfer(deps, auth.clientId, id);
}
