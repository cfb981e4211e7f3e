/**
 * What the travel-rule network tells us (through the signed route): counterparty answers to outbound
 * transfers, and inbound transfers from an originator VASP. Replayed or older notifications (revision
 * not above the last applied) and answers the current status does not allow change nothing.
 */

import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { SanctionsScreening } from '../../db/schema/sanctions-lists';
import type { Deps } from '../../deps';
import { enqueueJob, setTimer } from '../../platform/jobs/index';
import type { TravelRuleNotification } from '../../providers/travel-rule/port';
import { type Chain, normalizeAddress } from '../../shared/chain-addresses';
import { isUuid } from '../../shared/ids';
import { findWalletByAddress } from '../screening/screening.repo';
import { type Answer, applyAnswer } from './answers.service';
import { responseDeadline } from './dispatch.service';
import { TRANSFER_EXPIRY } from './expiry.service';
import { matchNames, partyName, screenPartyNames } from './parties.policy';
import { ANSWER_INBOUND_JOB } from './travel-rule.jobs';
import { moveTransfer, recordTransferStatus } from './travel-rule.machine';
import { findByNetworkRef, findTransfer, findWalletOwners, insertTransfer } from './travel-rule.repo';

export { OTHER_ADDRESS_REASON } from './answers.service';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

export async function applyTravelRuleNotification(deps: D, n: TravelRuleNotification): Promise<boolean> {
  if (n.type === 'transfer.inbound') return createInbound(deps, n);
  if (!isUuid(n.reference)) return false;
  if (n.type === 'transfer.completed' || n.type === 'transfer.canceled') return closeInbound(deps, n);
  return applyAnswer(deps, n as Answer);
}

/** The originator VASP reports the transaction (accepted -> completed) or calls the transfer off. */
async function closeInbound(
  deps: D,
  n: Extract<TravelRuleNotification, { type: 'transfer.completed' | 'transfer.canceled' }>,
) {
  return deps.db.transaction(async (tx) => {
    const t = await findTransfer(tx, null, n.reference, true);
    if (t?.direction !== 'inbound' || n.revision <= t.lastRevision) return false;
    const moved =
      n.type === 'transfer.completed'
        ? await moveTransfer(tx, t, 'tx_hash', {
            now: deps.clock.now(),
            set: { txHash: n.txHash, lastRevision: n.revision },
          })
        : await moveTransfer(tx, t, 'cancel', {
            now: deps.clock.now(),
            set: { statusReason: n.reason ?? 'Canceled by the originator VASP', lastRevision: n.revision },
          });
    return moved !== null;
  });
}

/**
 * The client owning the beneficiary wallet, when the network names only the wallet: exactly one
 * client must hold it (two clients with the same address cannot both be the recipient).
 */
async function recipientOf(db: DbOrTx, chain: string, address: string): Promise<string | null> {
  let normalized = address;
  try {
    normalized = normalizeAddress(chain as Chain, address);
  } catch {
    return null;
  }
  const owners = await findWalletOwners(db, chain, normalized);
  return owners.length === 1 ? owners[0]! : null;
}

/** Why an inbound transfer found no recipient here (sent back to the originator VASP). */
export const UNKNOWN_BENEFICIARY_REASON =
  'Unknown beneficiary: the address is not held by a customer of this VASP';

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
  const d = n.transfer;
  let recipient = n.recipient ?? (await recipientOf(deps.db, d.chain, d.beneficiary_address));
  // Sent to one client's own URL: only that client may be the recipient.
  if (n.onlyRecipient && recipient !== n.onlyRecipient) recipient = null;
  if (recipient === null || !isUuid(recipient)) {
    if (n.recipient !== null) return false;
    // The network named only the wallet and nobody here holds it: the originator VASP is told, once.
    await enqueueJob(
      deps.db,
      deps.clock,
      { kind: ANSWER_INBOUND_JOB },
      {
        payload: {
          networkRef: n.reference,
          answer: 'rejected',
          reason: UNKNOWN_BENEFICIARY_REASON,
          transferId: null,
          address: null,
        },
        dedupeKey: n.reference,
      },
    );
    return false;
  }
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
    const c = await tx.execute(sql`select 1 from clients where id = ${recipient}::uuid`);
    if (rowsOf(c).length === 0) return false;
    const now = deps.clock.now();
    let normalized = d.beneficiary_address;
    try {
      normalized = normalizeAddress(d.chain as Chain, d.beneficiary_address);
    } catch {
      // keep the address as sent
    }
    const wallet = await findWalletByAddress(tx, recipient, d.chain, normalized);
    const known = wallet ? await ownerName(tx, wallet) : null;
    const t = await insertTransfer(tx, {
      clientId: recipient,
      direction: 'inbound',
      status: 'awaiting_review',
      asset: d.asset,
      chain: d.chain,
      amount: d.amount,
      fiatAmount: d.fiat_value?.amount ?? null,
      fiatCurrency: d.fiat_value?.currency ?? null,
      thresholdApplies: true,
      originator: d.originator,
      beneficiary: d.beneficiary,
      originatorVasp: {
        name: d.originator_vasp.name,
        lei: d.originator_vasp.lei ?? null,
        country: d.originator_vasp.country,
      },
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
    // Unreviewed by its deadline, it expires (a timer written with it).
    await setTimer(tx, deps.clock, TRANSFER_EXPIRY, {
      payload: { transferId: t.id, clientId: t.clientId },
      runAt: t.expiresAt!,
      clientId: t.clientId,
    });
    return true;
  });
}
