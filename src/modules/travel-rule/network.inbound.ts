/**
 * What the travel-rule network tells us (through the signed route): counterparty answers to outbound
 * transfers, and inbound transfers from an originator VASP. Replayed or older notifications (revision
 * not above the last applied) and answers the current status does not allow change nothing.
 */

import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { SanctionsScreening } from '../../db/schema/sanctions-lists';
import type { Deps } from '../../deps';
import type { TravelRuleNotification } from '../../providers/travel-rule/port';
import { type Chain, normalizeAddress } from '../../shared/chain-addresses';
import { isUuid } from '../../shared/ids';
import { findWalletByAddress } from '../screening/screening.repo';
import { responseDeadline } from './dispatch';
import { matchNames, partyName, screenPartyNames } from './parties';
import { moveTransfer, recordTransferStatus, type Trigger } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';
import { findByNetworkRef, findTransfer, insertTransfer } from './travel-rule.repo';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

const TRIGGER: Record<Exclude<TravelRuleNotification['type'], 'transfer.inbound'>, Trigger> = {
  'transfer.accepted': 'counterparty_accepted',
  'transfer.rejected': 'counterparty_rejected',
  'transfer.repair_requested': 'counterparty_repair',
  'transfer.expired': 'expire',
};

export async function applyTravelRuleNotification(deps: D, n: TravelRuleNotification): Promise<boolean> {
  if (n.type === 'transfer.inbound') return createInbound(deps, n);
  if (!isUuid(n.reference)) return false;
  return deps.db.transaction(async (tx) => {
    const t = await findTransfer(tx, null, n.reference, true);
    if (!t || n.revision <= t.lastRevision) return false;
    const trigger = TRIGGER[n.type];
    const set =
      n.type === 'transfer.repair_requested'
        ? { repairFields: n.repairFields ?? [], statusReason: 'The counterparty asks for corrections' }
        : n.type === 'transfer.rejected'
          ? { statusReason: n.reason ?? 'Rejected by the counterparty' }
          : n.type === 'transfer.expired'
            ? { statusReason: TravelRuleMessages.expired }
            : { statusReason: null };
    const moved = await moveTransfer(tx, t, trigger, {
      now: deps.clock.now(),
      set: { ...set, lastRevision: n.revision },
    });
    return moved !== null;
  });
}

/** The name of the client's customer owning the wallet (user: first and last name; business: company). */
async function ownerName(db: DbOrTx, w: { userId: string | null; businessCustomerId: string | null }) {
  if (w.userId) {
    const r = await db.execute(
      sql`select concat_ws(' ', first_name, last_name) as name from kyc_users where id = ${w.userId}::uuid`,
    );
    return rowsOf<{ name: string }>(r)[0]?.name || null;
  }
  if (w.businessCustomerId) {
    const r = await db.execute(
      sql`select company_name as name from business_customers where id = ${w.businessCustomerId}::uuid`,
    );
    return rowsOf<{ name: string }>(r)[0]?.name || null;
  }
  return null;
}

async function createInbound(deps: D, n: Extract<TravelRuleNotification, { type: 'transfer.inbound' }>) {
  if (!isUuid(n.recipient)) return false;
  const d = n.transfer;
  // Screened before the transaction (the lists read the database); an inbound message is kept even
  // when the lists cannot answer (null: not screened), since refusing it would lose the transfer.
  let sanctionsScreening: SanctionsScreening = 'screened';
  const sanctionsMatches = await screenPartyNames(deps, [d.originator, d.beneficiary]).catch((err) => {
    deps.log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'party sanctions screening failed',
    );
    sanctionsScreening = 'unavailable';
    return null;
  });
  if (sanctionsMatches === null && sanctionsScreening === 'screened') sanctionsScreening = 'not_configured';
  return deps.db.transaction(async (tx) => {
    if (await findByNetworkRef(tx, n.reference)) return false;
    const c = await tx.execute(sql`select 1 from clients where id = ${n.recipient}::uuid`);
    if (rowsOf(c).length === 0) return false;
    const now = deps.clock.now();
    let normalized = d.beneficiary_address;
    try {
      normalized = normalizeAddress(d.chain as Chain, d.beneficiary_address);
    } catch {
      // keep the address as sent
    }
    const wallet = await findWalletByAddress(tx, n.recipient, d.chain, normalized);
    const known = wallet ? await ownerName(tx, wallet) : null;
    const t = await insertTransfer(tx, {
      clientId: n.recipient,
      direction: 'inbound',
      status: 'awaiting_review',
      asset: d.asset,
      chain: d.chain,
      amount: d.amount,
      fiatAmount: d.fiat_value.amount,
      fiatCurrency: d.fiat_value.currency,
      thresholdApplies: true,
      originator: d.originator,
      beneficiary: d.beneficiary,
      originatorVasp: { name: d.originator_vasp.name, lei: null, country: d.originator_vasp.country },
      counterpartyAddress: d.beneficiary_address,
      counterpartyHosted: true,
      walletId: wallet?.id ?? null,
      nameMatch: matchNames(partyName(d.beneficiary), known),
      sanctionsMatches,
      sanctionsScreening,
      userId: wallet?.userId ?? null,
      businessCustomerId: wallet?.businessCustomerId ?? null,
      networkRef: n.reference,
      lastRevision: n.revision,
      expiresAt: responseDeadline(deps, now),
      createdAt: now,
      updatedAt: now,
    });
    await recordTransferStatus(
      tx,
      t,
      null,
      now,
      { type: null, accountId: null },
      'travel_rule_transfer.received',
    );
    return true;
  });
}
