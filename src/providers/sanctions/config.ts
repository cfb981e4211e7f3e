/**
 * The sanctions-lists settings (`SVC_SANCTIONS_*`), read and checked with the rest of the
 * configuration so a bad deployment stops at start with every problem listed. See
 * docs/configuration.md ("Sanctions lists") and docs/vendors/sanctions-lists.md.
 */
import path from 'node:path';
import { SANCTIONS_LIST_IDS, type SanctionsListId } from './port';

/** What this module needs of src/config.ts's reader (structural: the provider does not import the config module). */
export interface Reader {
  readonly problems: string[];
  optional(name: string): string | null;
  int(name: string, fallback: number, min: number, max: number): number;
}

/** `sandbox` is the sandbox list (names containing SANCTIONED), for sandbox deployments only. */
export const SANCTIONS_SOURCES = ['sandbox', ...SANCTIONS_LIST_IDS] as const;
export type SanctionsSource = (typeof SANCTIONS_SOURCES)[number];

export interface ListSource {
  list: SanctionsListId;
  /** An https URL, or the absolute path of a file (file:// URLs are read as paths). */
  source: { kind: 'url'; url: string } | { kind: 'file'; path: string };
  /** How often the list is read again. */
  refreshMinutes: number;
}

export interface SanctionsConfig {
  /** The sandbox list is screened (sandbox deployments: the default). */
  sandbox: boolean;
  /** The official lists, in the order of SVC_SANCTIONS_LISTS. */
  lists: ListSource[];
  /** Default match threshold (0-100) of clients whose policy sets none. */
  matchThreshold: number;
  /** A download or read of one file must finish within this. */
  timeoutMs: number;
  /** Larger files are refused (a misconfigured URL must not fill the memory). */
  maxBytes: number;
  /** A new version with fewer than (100 - this)% of the current version's entries is refused. */
  maxDropPercent: number;
  /**
   * A list not confirmed current (loaded, or its file found unchanged) within this is stale: screening
   * fails closed (503) and readiness details and the staff status say so.
   */
  maxAgeHours: number;
  /** A list server's `Retry-After` (429, 503) is honoured up to this many seconds. */
  maxRetryAfterSeconds: number;
}

/** The lists' published files (docs/vendors/sanctions-lists.md, "Sources"). The EU file needs its token: no default. */
export const DEFAULT_SOURCES: Record<SanctionsListId, string | null> = {
  ofac_sdn: 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.XML',
  ofac_consolidated:
    'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONSOLIDATED.XML',
  eu_fsf: null,
  uk_sanctions_list: 'https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml',
  un_sc: 'https://scsanctions.un.org/resources/xml/en/consolidated.xml',
};

/** `ofac_sdn` -> `SVC_SANCTIONS_OFAC_SDN_SOURCE`. */
export const sourceSetting = (list: SanctionsListId) => `SVC_SANCTIONS_${list.toUpperCase()}_SOURCE`;
export const refreshSetting = (list: SanctionsListId) =>
  `SVC_SANCTIONS_${list.toUpperCase()}_REFRESH_MINUTES`;

function readSource(r: Reader, list: SanctionsListId, environment: string): ListSource['source'] | null {
  const name = sourceSetting(list);
  const value = r.optional(name) ?? DEFAULT_SOURCES[list];
  if (value === null) {
    r.problems.push(
      `${name} is required when SVC_SANCTIONS_LISTS names ${list} (the EU file's URL carries its token)`,
    );
    return null;
  }
  if (value.startsWith('file://')) return { kind: 'file', path: new URL(value).pathname };
  if (path.isAbsolute(value)) return { kind: 'file', path: value };
  try {
    const u = new URL(value);
    if (u.protocol === 'https:' || (u.protocol === 'http:' && environment !== 'production'))
      return { kind: 'url', url: value };
  } catch {
    // reported below
  }
  r.problems.push(`${name} must be an https URL or an absolute file path (got "${value}")`);
  return null;
}

export function readSanctionsConfig(r: Reader, environment: 'sandbox' | 'production'): SanctionsConfig {
  const raw = r.optional('SVC_SANCTIONS_LISTS');
  const names =
    raw === null ? (environment === 'sandbox' ? ['sandbox'] : []) : raw.split(',').map((s) => s.trim());
  const chosen: SanctionsSource[] = [];
  for (const n of names.filter((x) => x !== '' && x !== 'none')) {
    const known = SANCTIONS_SOURCES.find((s) => s === n);
    if (!known)
      r.problems.push(`SVC_SANCTIONS_LISTS: unknown list "${n}" (one of ${SANCTIONS_SOURCES.join(', ')})`);
    else if (!chosen.includes(known)) chosen.push(known);
  }
  if (environment === 'production' && chosen.includes('sandbox'))
    r.problems.push('SVC_SANCTIONS_LISTS: the sandbox list is for sandbox deployments');
  const lists: ListSource[] = [];
  for (const list of chosen) {
    if (list === 'sandbox') continue;
    const source = readSource(r, list, environment);
    const refreshMinutes = r.int(refreshSetting(list), 240, 5, 7 * 24 * 60);
    if (source) lists.push({ list, source, refreshMinutes });
  }
  return {
    sandbox: chosen.includes('sandbox'),
    lists,
    matchThreshold: r.int('SVC_SANCTIONS_MATCH_THRESHOLD', 85, 50, 100),
    timeoutMs: r.int('SVC_SANCTIONS_TIMEOUT_MS', 120_000, 1000, 600_000),
    maxBytes: r.int('SVC_SANCTIONS_MAX_BYTES', 200 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxDropPercent: r.int('SVC_SANCTIONS_MAX_DROP_PERCENT', 50, 0, 100),
    maxAgeHours: r.int('SVC_SANCTIONS_MAX_AGE_HOURS', 48, 1, 24 * 365),
    maxRetryAfterSeconds: r.int('SVC_SANCTIONS_MAX_RETRY_AFTER_SECONDS', 3600, 1, 24 * 3600),
  };
}
