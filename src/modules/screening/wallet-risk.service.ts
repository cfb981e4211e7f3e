/**
 * The wallet screening's answer for other areas (monitoring's `counterparty_wallet_risk`).
 * `screenWalletForMonitoring` starts a screening (trigger `monitoring`) through the same use case as
 * POST /screening/wallet, reusing a completed one younger than `maxAgeSeconds`; `screenedWalletRisk`
 * only reads the latest one (policy test and backtest, which store nothing). Pending, failed and
 * unknown are never low: the caller counts them as a review.
 */
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { CHAINS, type Chain, isValidAddress, normalizeAddress } from '../../shared/chain-addresses';
import { AppError } from '../../shared/errors';
import { assertFeatureEnabled } from '../features/features.service';
import { findWalletByAddress, freshCompletedScreening, type ScreeningRow } from './screening.repo';
import { assertScreeningConfigured, createPendingScreening, runProvider } from './screening.service';

type Level = 'low' | 'medium' | 'high' | 'severe' | 'unknown';

export type ScreenedWalletRisk =
  | { status: 'completed'; level: Level; screeningId?: string }
  | { status: 'pending'; screeningId?: string };

const validChain = (wallet: { chain: string; address: string }): Chain | null => {
  const chain = wallet.chain as Chain;
  return CHAINS.includes(chain) && isValidAddress(chain, wallet.address) ? chain : null;
};

/** null: the client never screened this wallet (or the address is not valid for its chain). */
export async function screenedWalletRisk(
  db: DbOrTx,
  clientId: string,
  wallet: { chain: string; address: string },
): Promise<ScreenedWalletRisk | null> {
  const chain = validChain(wallet);
  if (!chain) return null;
  const row = await findWalletByAddress(db, clientId, chain, normalizeAddress(chain, wallet.address));
  if (!row) return null;
  if (!row.riskLevel || !row.lastScreenedAt) return { status: 'pending' };
  return {
    status: 'completed',
    level: row.riskLevel as Level,
    screeningId: row.latestScreeningId ?? undefined,
  };
}

/** A screening's risk: completed with its level; failed has no data (unknown); pending stays pending. */
function riskOf(s: ScreeningRow): ScreenedWalletRisk {
  if (s.status === 'completed')
    return { status: 'completed', level: s.riskLevel as Level, screeningId: s.id };
  if (s.status === 'failed') return { status: 'completed', level: 'unknown', screeningId: s.id };
  return { status: 'pending', screeningId: s.id };
}

/**
 * Screens a counterparty wallet for transaction monitoring, outside any database transaction. 503
 * without a screening adapter; with wallet screening switched off for the client it only reads.
 */
export async function screenWalletForMonitoring(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>,
  clientId: string,
  wallet: { chain: string; address: string },
  maxAgeSeconds: number,
): Promise<ScreenedWalletRisk | null> {
  const chain = validChain(wallet);
  if (!chain) return null;
  try {
    await assertFeatureEnabled(deps.db, deps.config.environment, clientId, 'wallet_screening');
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 403)
      return screenedWalletRisk(deps.db, clientId, wallet);
    throw err;
  }
  assertScreeningConfigured(deps);
  const now = deps.clock.now();
  if (maxAgeSeconds > 0) {
    const existing = await findWalletByAddress(
      deps.db,
      clientId,
      chain,
      normalizeAddress(chain, wallet.address),
    );
    const fresh =
      existing &&
      (await freshCompletedScreening(deps.db, existing.id, new Date(now.getTime() - maxAgeSeconds * 1000)));
    if (fresh) return riskOf(fresh);
  }
  const { screening } = await deps.db.transaction((tx) =>
    createPendingScreening(tx, deps, now, clientId, { chain, address: wallet.address }, 'monitoring'),
  );
  return riskOf(await runProvider(deps, screening));
}
