/** Transfer actions of the client API: repair (PATCH), tx hash, proceed, inbound accept/reject, cancel. */
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { type JobDefinition, runJobsNow } from '../../platform/jobs/index';
import type { ClientAuth } from '../../plugins/auth';
import { badRequest, notFound } from '../../shared/errors';
import { assertFeatureEnabled } from '../features/features.service';
import { oweCounterpartyMessage } from './counterparty-messages.service';
import { sendTo } from './dispatch.service';
import { checkParties, type Party, screenOutboundParties } from './parties.policy';
import { actorOf, assertNetworkConfigured, type D, getTransfer } from './transfers.service';
import { counterpartyMessageJob } from './travel-rule.jobs';
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

/** What a move owes the counterparty, written in its transaction: the ids of the jobs written. */
type Owes = (tx: DbOrTx, before: TransferRow, after: TransferRow) => Promise<(string | null)[]>;

/**
 * Moves by `trigger` in one transaction (400 when the state does not allow it); `owes` writes the
 * messages the move owes the counterparty in that transaction.
 */
async function act(
  deps: D,
  auth: ClientAuth,
  id: string,
  trigger: Trigger,
  set: (t: TransferRow) => Partial<TransferRow>,
  check?: (t: TransferRow) => void,
  owes?: Owes,
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
    return { before: t, after: r, jobIds: owes ? await owes(tx, t, r) : [] };
  });
  return moved;
}

/**
 * The first attempt of the messages a request's move owes, at once after its commit; a failure is
 * the job's first failed attempt (the runner retries it), never the request's.
 */
async function sendOwedNow(deps: Deps, jobIds: (string | null)[]) {
  await runJobsNow(deps, [counterpartyMessageJob as JobDefinition<never>], jobIds).catch((err) =>
    deps.log.warn({ err }, 'travel-rule message to the counterparty failed; the jobs runner retries it'),
  );
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

/** accepted -> completed; a network whose beneficiary VASP expects the hash (TRP's transfer confirmation) is told. */
export async function submitTxHash(deps: Deps, auth: ClientAuth, id: string, txHash: string) {
  const net = deps.providers.travelRule;
  const { jobIds } = await act(
    deps,
    auth,
    id,
    'tx_hash',
    () => ({ txHash }),
    undefined,
    async (tx, _, t) =>
      net.confirm && t.direction === 'outbound' && t.counterpartyCallback
        ? [await oweCounterpartyMessage(tx, deps.clock, t, 'txid')]
        : [],
  );
  await sendOwedNow(deps, jobIds);
  return getTransfer(deps, auth.clientId, id);
}

export async function proceedTransfer(deps: D, auth: ClientAuth, id: string, justification: string) {
  await act(deps, auth, id, 'proceed', () => ({ statusReason: TravelRuleMessages.proceeded, justification }));
  return getTransfer(deps, auth.clientId, id);
}

/** Inbound `awaiting_review` only; the answer goes back to the originator VASP (a job, see above). */
export async function reviewTransfer(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  answer: 'accepted' | 'rejected',
  reason: string | null,
) {
  const inboundOnly = (t: TransferRow) => {
    if (t.direction !== 'inbound') throw badRequest(TravelRuleMessages.badState(t.status));
  };
  const { jobIds } = await act(
    deps,
    auth,
    id,
    answer === 'accepted' ? 'review_accept' : 'review_reject',
    () => (answer === 'rejected' ? { statusReason: reason } : {}),
    inboundOnly,
    async (tx, _, t) =>
      t.networkRef
        ? [
            await oweCounterpartyMessage(
              tx,
              deps.clock,
              t,
              answer === 'accepted' ? 'approved' : 'rejected',
              answer === 'rejected' ? reason : null,
            ),
          ]
        : [],
  );
  await sendOwedNow(deps, jobIds);
  return getTransfer(deps, auth.clientId, id);
}

/**
 * Any non-terminal status; a counterparty that has the data is told: the originator VASP of an
 * inbound transfer gets a rejection, the beneficiary VASP of an outbound one the cancel (TRP: only
 * once it approved, on its confirmation callback).
 */
export async function cancelTransfer(deps: Deps, auth: ClientAuth, id: string) {
  const { jobIds } = await act(
    deps,
    auth,
    id,
    'cancel',
    () => ({ statusReason: TravelRuleMessages.canceled }),
    undefined,
    async (tx, before, t) =>
      before.direction === 'inbound' && before.networkRef
        ? [await oweCounterpartyMessage(tx, deps.clock, t, 'rejected', TravelRuleMessages.canceled)]
        : before.direction === 'outbound' && before.beneficiaryVasp
          ? [await oweCounterpartyMessage(tx, deps.clock, t, 'canceled')]
          : [],
  );
  await sendOwedNow(deps, jobIds);
  return getTransfer(deps, auth.clientId, id);
}
