/**
 * Sanctions name screening of a monitored transaction's parties through the screening provider port
 * (sandbox: a name containing `SANCTIONED` matches the `Sandbox sanctions list`), minus the client's
 * allowlist. A deployment without a screening adapter answers 503 before anything is stored.
 * The provider is asked outside any database transaction; the allowlist is applied inside it.
 */
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { AppError } from '../../shared/errors';
import type { SanctionsMatch } from './monitoring.evaluate';
import { MonitoringMessages } from './monitoring.messages';
import { allowlistKeys } from './monitoring.repo';

export interface ScreenedParty {
  name: string;
  /** account identifier, wallet address or customer id ('' when none): the allowlist key with the name. */
  identifier: string;
}

/** A party whose name the provider matched, before the allowlist. */
export interface PartyMatch {
  p: ScreenedParty;
  m: SanctionsMatch;
}

export const nameKey = (name: string) => name.trim().toLowerCase().replace(/\s+/g, ' ');

/** Asks the provider about every party's name; 503 when the deployment has no screening adapter. */
export async function screenPartyNames(
  deps: Pick<Deps, 'providers' | 'log'>,
  parties: ScreenedParty[],
): Promise<PartyMatch[]> {
  const provider = deps.providers.screening;
  if (!provider.configured) throw new AppError(503, MonitoringMessages.screeningNotConfigured);
  let results: Awaited<ReturnType<typeof provider.screenNames>>;
  try {
    results = await provider.screenNames(parties.map((p) => p.name));
  } catch (err) {
    deps.log.error({ err }, 'sanctions name screening failed');
    throw new AppError(503, MonitoringMessages.screeningUnavailable);
  }
  return parties.flatMap((p, i) => {
    const m = results[i];
    return m ? [{ p, m: { list: m.list, matched_name: m.matched_name, match_score: m.match_score } }] : [];
  });
}

/** Matches per party (deduplicated), with parties the client cleared left out. */
export async function withoutAllowlisted(
  db: DbOrTx,
  clientId: string,
  found: PartyMatch[],
): Promise<{ matches: SanctionsMatch[]; matchedParties: ScreenedParty[] }> {
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
