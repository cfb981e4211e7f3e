/**
 * Counterparty discovery and sending (outside any transaction), then the status move in a short
 * transaction: delivered -> awaiting_counterparty, unhosted -> awaiting_ownership (with a section 3
 * ownership request for the transfer's customer), not reachable -> counterparty_not_reachable.
 * A network that retries (its port's `retry`, e.g. TRP) turns a counterparty that cannot take the
 * message now into a dispatch job due after the next wait; once the waits are used up, or when the
 * counterparty refuses the message outright, the transfer is counterparty_not_reachable.
 */
import type { Deps } from '../../deps';
import { enqueueJob, setTimer } from '../../platform/jobs/index';
import {
  type TravelRuleNotification,
  TravelRuleProviderError,
  type Vasp,
} from '../../providers/travel-rule/port';
import type { Chain } from '../../shared/chain-addresses';
import { createOwnershipInTx } from '../screening/ownership.service';
import { type Answer, applyAnswerIn } from './answers.service';
import { TRANSFER_EXPIRY } from './expiry.service';
import { moveTransfer, type TransferRow } from './travel-rule.machine';
import { findTransfer } from './travel-rule.repo';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

export const responseDeadline = (deps: Pick<D, 'config'>, now: Date) =>
  new Date(now.getTime() + deps.config.travelRuleResponseTimeoutHours * 3600_000);

/** Sends the transfer's data to `vasp` and moves it by `trigger` (delivered or repaired). */
export async function sendTo(deps: D, t: TransferRow, vasp: Vasp, trigger: 'delivered' | 'repaired') {
  if (!vasp.reachable) return markUnreachable(deps, t, vasp, null);
  const answer = await deps.providers.travelRule.send({
    transferId: t.id,
    vaspId: vasp.vasp_id,
    asset: t.asset,
    chain: t.chain,
    amount: t.amount,
    originator: t.originator,
    beneficiary: t.beneficiary,
    originatorVasp: t.originatorVasp ?? { name: '', country: '' },
    travelAddress: t.counterpartyTravelAddress,
  });
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const locked = (await findTransfer(tx, t.clientId, t.id, true))!;
    const expiresAt = responseDeadline(deps, now);
    const moved = await moveTransfer(tx, locked, trigger, {
      now,
      set: {
        beneficiaryVasp: { vasp_id: vasp.vasp_id, name: vasp.name, country: vasp.country },
        counterpartyHosted: true,
        repairFields: null,
        expiresAt,
      },
    });
    // The response deadline is a timer, set (or moved, after a repair) with it.
    if (moved)
      await setTimer(tx, deps.clock, TRANSFER_EXPIRY, {
        payload: { transferId: t.id, clientId: t.clientId },
        runAt: expiresAt,
        clientId: t.clientId,
      });
    // An answer in the delivery's own reply is applied with the move (same transaction).
    if (!moved || !answer || !isAnswer(answer)) return moved;
    await applyAnswerIn(tx, deps, answer, false);
    return (await findTransfer(tx, t.clientId, t.id))!;
  });
}

const isAnswer = (n: TravelRuleNotification): n is Answer =>
  n.type !== 'transfer.inbound' && n.type !== 'transfer.completed' && n.type !== 'transfer.canceled';

export const DISPATCH_JOB = 'travel_rule.dispatch';

/** The status reason of a transfer the counterparty never took. */
export const unreachableReason = (attempts: number, refused: boolean) =>
  refused
    ? 'The counterparty VASP refused the message'
    : `The counterparty VASP could not be reached (${attempts} attempts)`;

/**
 * counterparty_not_reachable, naming the VASP (the transfer is still pending: nothing was delivered);
 * `reason` null for a VASP the directory already says is unreachable (no status reason set).
 */
export async function markUnreachable(deps: D, t: TransferRow, vasp: Vasp, reason: string | null) {
  return deps.db.transaction(async (tx) => {
    const locked = (await findTransfer(tx, t.clientId, t.id, true))!;
    return moveTransfer(tx, locked, 'unreachable', {
      now: deps.clock.now(),
      set: {
        beneficiaryVasp: { vasp_id: vasp.vasp_id, name: vasp.name, country: vasp.country },
        counterpartyHosted: true,
        ...(reason === null ? {} : { statusReason: reason }),
      },
    });
  });
}

/**
 * Sends, and when the network retries: a retryable failure schedules attempt `attempt + 1` after
 * the next wait (dedupe key per transfer and attempt, so a repeated run schedules it once), the last
 * one or a refusal makes the transfer counterparty_not_reachable. Other networks' failures propagate.
 */
export async function sendOrRetry(deps: D, t: TransferRow, vasp: Vasp, attempt: number) {
  try {
    return await sendTo(deps, t, vasp, 'delivered');
  } catch (err) {
    const retry = deps.providers.travelRule.retry;
    if (!retry || !(err instanceof TravelRuleProviderError)) throw err;
    const wait = retry.delaysSeconds[attempt - 1];
    if (!err.retryable || wait === undefined) {
      deps.log.warn({ transferId: t.id, attempt, retryable: err.retryable }, 'travel-rule delivery gave up');
      return markUnreachable(deps, t, vasp, unreachableReason(attempt, !err.retryable));
    }
    deps.log.warn(
      { transferId: t.id, attempt, waitSeconds: wait },
      'travel-rule delivery failed; retried later',
    );
    await enqueueJob(
      deps.db,
      deps.clock,
      { kind: DISPATCH_JOB },
      {
        payload: { transferId: t.id, clientId: t.clientId, vaspId: vasp.vasp_id, attempt: attempt + 1 },
        dedupeKey: `${t.id}:${attempt + 1}`,
        clientId: t.clientId,
        runAt: new Date(deps.clock.now().getTime() + wait * 1000),
      },
    );
    return null;
  }
}

/** Discovery of a pending outbound transfer; a network failure leaves it pending (logged) or retried. */
export async function dispatchTransfer(deps: D, t: TransferRow, vaspId: string | null) {
  const net = deps.providers.travelRule;
  try {
    let vasp: Vasp | null = null;
    if (vaspId) vasp = (await net.directory()).find((v) => v.vasp_id === vaspId) ?? null;
    else {
      const d = await net.discover(t.chain, t.counterpartyAddress);
      vasp = d.hosted ? d.vasp : null;
    }
    if (vasp) return await sendOrRetry(deps, t, vasp, 1);
    return await deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const locked = (await findTransfer(tx, t.clientId, t.id, true))!;
      const own = await createOwnershipInTx(tx, deps, now, t.clientId, {
        chain: t.chain as Chain,
        address: t.counterpartyAddress,
        user_id: t.userId ?? undefined,
        business_customer_id: t.businessCustomerId ?? undefined,
        client_reference: t.clientReference ? `travel-rule:${t.clientReference}`.slice(0, 100) : undefined,
      });
      return moveTransfer(tx, locked, 'unhosted', {
        now,
        set: {
          counterpartyHosted: false,
          ownershipRequestId: own.id,
          walletId: locked.walletId ?? own.walletId,
        },
      });
    });
  } catch (err) {
    deps.log.error({ err, transferId: t.id }, 'travel-rule discovery or delivery failed');
    return null;
  }
}
