/**
 * Sanctions name screening of a monitored transaction's parties through the sanctions port (the
 * official lists of SVC_SANCTIONS_LISTS; on sandbox deployments the sandbox list, where a name
 * containing `SANCTIONED` matches the `Sandbox sanctions list`), minus the client's allowlist. The
 * client's policy sets the match threshold (`sanctions.match_threshold`, default
 * SVC_SANCTIONS_MATCH_THRESHOLD). A deployment without lists answers 503 before anything is stored;
 * lists configured but not loaded yet, or unreadable, answer 503 too (fail closed).
 * The lists are read outside any database transaction; the allowlist is applied inside it.
 */
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { identifierChecks, SanctionsUnavailableError } from '../../providers/sanctions/port';
import { AppError } from '../../shared/errors';
import type { SanctionsMatch } from './engine.policy';
import { MonitoringMessages } from './monitoring.messages';
import { allowlistKeys } from './monitoring.repo';

export interface ScreenedParty {
  name: string;
  /** account identifier, wallet address or customer id ('' when none): the allowlist key with the name. */
  identifier: string;
  type?: 'natural' | 'legal';
  country?: string | null;
  dateOfBirth?: string | null;
}

/** A party whose name the provider matched, before the allowlist. */
export interface PartyMatch {
  p: ScreenedParty;
  m: SanctionsMatch;
}

export const nameKey = (name: string) => name.trim().toLowerCase().replace(/\s+/g, ' ');

/** Asks the lists about every party's name; 503 when the deployment has none, or they cannot answer. */
export async function screenPartyNames(
  deps: Pick<Deps, 'providers' | 'log' | 'db' | 'clock' | 'config'>,
  parties: ScreenedParty[],
  threshold: number | null | undefined,
): Promise<PartyMatch[]> {
  const lists = deps.providers.sanctions;
  if (!lists.configured) throw new AppError(503, MonitoringMessages.screeningNotConfigured);
  let results: Awaited<ReturnType<typeof lists.screen>>;
  try {
    results = await lists.screen(
      deps,
      parties.map((p) => ({ name: p.name, type: p.type, country: p.country, dateOfBirth: p.dateOfBirth })),
      { threshold: threshold ?? deps.config.sanctions.matchThreshold },
    );
  } catch (err) {
    if (err instanceof SanctionsUnavailableError)
      deps.log.warn({ err: err.message }, 'sanctions lists unavailable');
    else deps.log.error({ err }, 'sanctions name screening failed');
    throw new AppError(503, MonitoringMessages.screeningUnavailable);
  }
  return parties.flatMap((p, i) =>
    (results[i] ?? []).map((m) => ({
      p,
      // The sandbox list's hits keep their shape; an official list's also name the entry and version.
      m:
        m.entry_id === null
          ? { list: m.list, matched_name: m.matched_name, match_score: m.match_score }
          : {
              list: m.list,
              matched_name: m.matched_name,
              match_score: m.match_score,
              entry_id: m.entry_id,
              entry_name: m.entry_name ?? m.matched_name,
              screened_name: p.name,
              list_version: m.list_version,
              alias_strength: m.alias_strength,
              ...identifierChecks(m),
            },
    })),
  );
}

/**
 * The allowlist key of a hit on a party: the party (its name and identifier) and the hit that was
 * cleared (the list and the entry; the sandbox list's entries have no id). A reviewer clears "this
 * party is not that entry": another entry of the same name, designated later or on another list,
 * alerts again.
 */
export const clearedKey = (partyName: string, identifier: string, list: string, entryId: string | null) =>
  [nameKey(partyName), identifier, list, entryId ?? ''].join('\u0000');

/** Matches per party and entry (deduplicated), with the hits the client cleared for that party left out. */
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
  // Rows kept from before hits were keyed (list '') clear nothing: their keyed copies were made by
  // the migration from the cleared transaction's matches.
  const cleared = new Set(
    allowed
      .filter((a) => a.list !== '')
      .map((a) => [a.nameKey, a.identifier, a.list, a.entryId].join('\u0000')),
  );
  const kept = found.filter(
    (x) => !cleared.has(clearedKey(x.p.name, x.p.identifier, x.m.list, x.m.entry_id ?? null)),
  );
  const seen = new Set<string>();
  const unique = kept.filter((x) => {
    const k = `${x.m.list}\u0000${x.m.entry_id ?? ''}\u0000${nameKey(x.m.matched_name)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const parties = [...new Set(kept.map((x) => x.p))];
  return { matches: unique.map((x) => x.m), matchedParties: parties };
}
