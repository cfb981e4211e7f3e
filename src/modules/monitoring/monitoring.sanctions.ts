/**
 * Sanctions name screening of a monitored transaction's parties, minus the client's allowlist.
 * Sandbox: the screening simulator's list — a name containing `SANCTIONED` (any case) matches the
 * `Sandbox sanctions list`. Production has no name-screening adapter yet: 503, nothing stored.
 */

import type { Environment } from '../../config';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../shared/errors';
import type { SanctionsMatch } from './monitoring.evaluate';
import { MM } from './monitoring.messages';
import { allowlistKeys } from './monitoring.repo';

export const SANDBOX_SANCTIONS_LIST = 'Sandbox sanctions list';

export interface ScreenedParty {
  name: string;
  /** account identifier, wallet address or customer id ('' when none): the allowlist key with the name. */
  identifier: string;
}

export const nameKey = (name: string) => name.trim().toLowerCase().replace(/\s+/g, ' ');

function screenSandbox(name: string): SanctionsMatch | null {
  return /sanctioned/i.test(name)
    ? { list: SANDBOX_SANCTIONS_LIST, matched_name: name.trim(), match_score: 100 }
    : null;
}

/** Matches per party (deduplicated), with parties the client cleared left out. */
export async function screenParties(
  db: DbOrTx,
  environment: Environment,
  clientId: string,
  parties: ScreenedParty[],
): Promise<{ matches: SanctionsMatch[]; matchedParties: ScreenedParty[] }> {
  if (environment !== 'sandbox') throw new AppError(503, MM.screeningNotConfigured);
  const found = parties
    .map((p) => ({ p, m: screenSandbox(p.name) }))
    .filter((x): x is { p: ScreenedParty; m: SanctionsMatch } => x.m !== null);
  if (found.length === 0) return { matches: [], matchedParties: [] };
  const allowed = await allowlistKeys(
    db,
    clientId,
    found.map((x) => nameKey(x.p.name)),
  );
  const cleared = new Set(allowed.map((a) => `${a.nameKey}\u0000${a.identifier}`));
  const kept = found.filter((x) => !cleared.has(`${nameKey(x.p.name)}\u0000${x.p.identifier}`));
  const seen = new Set<string>();
  const unique = kept.filter((x) => {
    const k = nameKey(x.m.matched_name);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { matches: unique.map((x) => x.m), matchedParties: kept.map((x) => x.p) };
}
