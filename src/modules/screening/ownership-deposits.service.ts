/** The chain observer's deposit notifications for Satoshi tests, and the sandbox ownership simulate endpoint. */
import type { Deps } from '../../deps';
import { add, compare, parseDecimal } from '../../platform/decimal';
import type { ClientAuth } from '../../plugins/auth';
import type { ScreeningNotification } from '../../providers/screening/port';
import { type Chain, normalizeAddress } from '../../shared/chain-addresses';
import { badRequest, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { moveOwnership, type OwnershipRow, TERMINAL } from './ownership.machine';
import { findOwnership } from './ownership.repo';
import { getOwnershipRequest } from './ownership.service';
import { ScreeningMessages } from './screening.messages';

/** A deposit amount: a non-negative decimal of at most 18 decimals (wei), or null. */
const units = (amount: string) => {
  const d = parseDecimal(amount.trim());
  return d && d.units >= 0n && d.scale <= 18 ? d : null;
};

/** A deposit the observer saw: exact amount from the wallet before the window closes verifies; anything else fails. */
export async function applyDepositNotification(
  deps: Pick<Deps, 'db' | 'clock' | 'events'>,
  n: Extract<ScreeningNotification, { type: 'deposit.observed' }>,
): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/i.test(n.reference)) return false;
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const r = await findOwnership(tx, null, n.reference, true);
    if (r?.status !== 'verifying' || !r.satoshiTest) return false;
    const fromOk =
      normalizeAddress(r.chain as Chain, n.deposit.from_address) ===
      normalizeAddress(r.chain as Chain, r.address);
    const expected = units(r.satoshiTest.amount);
    const got = units(n.deposit.amount);
    const inWindow = now <= new Date(r.satoshiTest.expires_at);
    if (
      fromOk &&
      inWindow &&
      got !== null &&
      expected !== null &&
      compare(got, expected) === 0 &&
      n.deposit.asset === r.satoshiTest.asset
    ) {
      await moveOwnership(tx, r, 'verified', { now, events: deps.events });
      return true;
    }
    if (!fromOk) return false; // someone else's deposit says nothing about this wallet
    await moveOwnership(tx, r, 'failed', {
      now,
      events: deps.events,
      set: {
        failureReason: inWindow ? ScreeningMessages.wrongAmount : ScreeningMessages.depositWindowClosed,
      },
    });
    return true;
  });
}

/** Asks the sandbox chain observer to report the deposit (exact, or off by 0.00001). */
export async function reportSandboxDeposit(deps: Pick<Deps, 'providers'>, r: OwnershipRow, exact: boolean) {
  const sim = deps.providers.screening.sandbox;
  if (!sim) throw notFound(M.notFound);
  const s = r.satoshiTest!;
  const amount = exact ? s.amount : add(s.amount, '0.00001');
  await sim.simulateDeposit(r.id, {
    from_address: r.address,
    to_address: s.deposit_address,
    amount,
    asset: s.asset,
  });
}

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log' | 'mailer' | 'events'>;

export async function simulateOwnership(
  deps: D,
  auth: ClientAuth,
  id: string,
  action: 'deposit_received' | 'deposit_wrong_amount' | 'expire',
) {
  if (deps.config.environment !== 'sandbox' || !deps.providers.screening.sandbox) throw notFound(M.notFound);
  const r = await findOwnership(deps.db, auth.clientId, id);
  if (!r) throw notFound(ScreeningMessages.ownershipNotFound);
  if (TERMINAL.includes(r.status)) throw badRequest(ScreeningMessages.terminal(r.status));
  if (action === 'expire') {
    await deps.db.transaction(async (tx) => {
      const locked = (await findOwnership(tx, auth.clientId, id, true))!;
      if (TERMINAL.includes(locked.status)) throw badRequest(ScreeningMessages.terminal(locked.status));
      await moveOwnership(tx, locked, 'expired', { now: deps.clock.now(), events: deps.events });
    });
  } else {
    if (r.status !== 'verifying') throw badRequest(ScreeningMessages.notVerifying(r.status));
    await reportSandboxDeposit(deps, r, action === 'deposit_received');
  }
  return getOwnershipRequest(deps, auth.clientId, id);
}
