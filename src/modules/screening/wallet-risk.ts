/**
 * The wallet screening's answer for other areas (monitoring's `counterparty_wallet_risk`): the risk
 * of the client's wallet from its latest completed screening, `pending` while none has completed.
 */
import type { DbOrTx } from '../../db/client';
import { CHAINS, type Chain, isValidAddress, normalizeAddress } from './addresses';
import { findWalletByAddress } from './screening.repo';

export type ScreenedWalletRisk =
  | { status: 'completed'; level: 'low' | 'medium' | 'high' | 'severe' | 'unknown'; screeningId?: string }
  | { status: 'pending' };

/** null: the client never screened this wallet (or the address is not valid for its chain). */
export async function screenedWalletRisk(
  db: DbOrTx,
  clientId: string,
  wallet: { chain: string; address: string },
): Promise<ScreenedWalletRisk | null> {
  const chain = wallet.chain as Chain;
  if (!CHAINS.includes(chain) || !isValidAddress(chain, wallet.address)) return null;
  const row = await findWalletByAddress(db, clientId, chain, normalizeAddress(chain, wallet.address));
  if (!row) return null;
  if (!row.riskLevel || !row.lastScreenedAt) return { status: 'pending' };
  return {
    status: 'completed',
    level: row.riskLevel as 'low' | 'medium' | 'high' | 'severe' | 'unknown',
    screeningId: row.latestScreeningId ?? undefined,
  };
}
