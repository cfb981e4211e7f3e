/**
 * Counterparty discovery and sending (outside any transaction), then the status move in a short
 * transaction: delivered -> awaiting_counterparty, unhosted -> awaiting_ownership (with a section 3
 * ownership request for the transfer's customer), not reachable -> counterparty_not_reachable.
 */
import type { Deps } from '../../deps';
import type { Vasp } from '../../providers/travel-rule/port';
import type { Chain } from '../../shared/chain-addresses';
import { createOwnershipInTx } from '../screening/ownership.service';
import { moveTransfer, type TransferRow } from './travel-rule.machine';
import { findTransfer } from './travel-rule.repo';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

export const responseDeadline = (deps: Pick<D, 'config'>, now: Date) =>
  new Date(now.getTime() + deps.config.travelRuleResponseTimeoutHours * 3600_000);

/** Sends the transfer's data to `vasp` and moves it by `trigger` (delivered or repaired). */
export async function sendTo(deps: D, t: TransferRow, vasp: Vasp, trigger: 'delivered' | 'repaired') {
  if (!vasp.reachable) {
    return deps.db.transaction(async (tx) => {
      const locked = (await findTransfer(tx, t.clientId, t.id, true))!;
      return moveTransfer(tx, locked, 'unreachable', {
        now: deps.clock.now(),
        set: {
          beneficiaryVasp: { vasp_id: vasp.vasp_id, name: vasp.name, country: vasp.country },
          counterpartyHosted: true,
        },
      });
    });
  }
  await deps.providers.travelRule.send({
    transferId: t.id,
    vaspId: vasp.vasp_id,
    asset: t.asset,
    chain: t.chain,
    amount: t.amount,
    originator: t.originator,
    beneficiary: t.beneficiary,
    originatorVasp: t.originatorVasp ?? { name: '', country: '' },
  });
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const locked = (await findTransfer(tx, t.clientId, t.id, true))!;
    return moveTransfer(tx, locked, trigger, {
      now,
      set: {
        beneficiaryVasp: { vasp_id: vasp.vasp_id, name: vasp.name, country: vasp.country },
        counterpartyHosted: true,
        repairFields: null,
        expiresAt: responseDeadline(deps, now),
      },
    });
  });
}

/** Discovery of a pending outbound transfer; a network failure leaves it pending (logged). */
export async function dispatchTransfer(deps: D, t: TransferRow, vaspId: string | null) {
  const net = deps.providers.travelRule;
  try {
    let vasp: Vasp | null = null;
    if (vaspId) vasp = (await net.directory()).find((v) => v.vasp_id === vaspId) ?? null;
    else {
      const d = await net.discover(t.chain, t.counterpartyAddress);
      vasp = d.hosted ? d.vasp : null;
    }
    if (vasp) return await sendTo(deps, t, vasp, 'delivered');
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
