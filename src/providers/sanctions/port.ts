/**
 * The sanctions-lists port (docs/vendors/sanctions-lists.md): name screening of parties against the
 * official lists (OFAC SDN and consolidated, EU, UK, UN) or, on sandbox deployments, the sandbox list.
 * Callers speak in normalized terms only: a hit names the list, the entry, the matched alias and the
 * score (0-100); the lists' raw codes never leave the provider.
 */
import type { Db } from '../../db/client';
import { RetryNotBeforeError } from '../../platform/jobs/retry-not-before';

/** The official lists this service can load (SVC_SANCTIONS_LISTS). */
export const SANCTIONS_LIST_IDS = [
  'ofac_sdn',
  'ofac_consolidated',
  'eu_fsf',
  'uk_sanctions_list',
  'un_sc',
] as const;
export type SanctionsListId = (typeof SANCTIONS_LIST_IDS)[number];

/** The name shown in hits (`list`) and in the staff status. */
export const SANCTIONS_LIST_NAMES: Record<SanctionsListId, string> = {
  ofac_sdn: 'OFAC SDN List',
  ofac_consolidated: 'OFAC Consolidated Sanctions List',
  eu_fsf: 'EU Consolidated Financial Sanctions List',
  uk_sanctions_list: 'UK Sanctions List',
  un_sc: 'UN Security Council Consolidated List',
};

export const ENTRY_KINDS = ['individual', 'entity', 'vessel', 'aircraft', 'other'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * How much a list trusts a name: `primary` (the listed name and its spelling variations), `strong`
 * (a good-quality alias) or `weak` (OFAC's weak AKA, the UN's and UK's "Low quality" alias, EU
 * `strong="false"`): weak names only corroborate (docs/vendors/sanctions-lists.md, "Weak aliases").
 */
export type NameStrength = 'primary' | 'strong' | 'weak';

export interface ListName {
  name: string;
  strength: NameStrength;
}

/** One entry of a list, as the mapping reads it from the published file. */
export interface ListEntry {
  /** The list's own reference: OFAC uid, EU logicalId, UK UniqueID, UN DATAID. */
  id: string;
  kind: EntryKind;
  /** The first is the primary name. */
  names: ListName[];
  /**
   * Dates of birth as `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or a window of years `YYYY/YYYY` (a range, or
   * an approximate date: OFAC `circa`, EU `circa="true"`, UN APPROXIMATELY). Versions stored before
   * windows existed hold a range as its separate years, which reads the same.
   */
  dobs: string[];
  /** ISO 3166 alpha-2 codes of nationality, citizenship and address countries. */
  countries: string[];
}

export interface ParsedList {
  /** The list's own publication date (ISO 8601), when the file states one. */
  publishedAt: string | null;
  entries: ListEntry[];
}

/** A party to screen; date of birth and country lower false positives where both sides have them. */
export interface ScreenParty {
  name: string;
  type?: 'natural' | 'legal';
  /** `YYYY-MM-DD` or `YYYY`. */
  dateOfBirth?: string | null;
  /** ISO 3166 alpha-2. */
  country?: string | null;
}

export interface SanctionsHit {
  /** The list's display name (`SANCTIONS_LIST_NAMES`), or the sandbox list. */
  list: string;
  /** The entry's reference on that list (null on the sandbox list, whose entries are the names themselves). */
  entry_id: string | null;
  /** The entry's primary name (null on the sandbox list). */
  entry_name: string | null;
  /** The name of the entry that matched (the primary name or an alias). */
  matched_name: string;
  alias_strength: NameStrength;
  /** 0-100. */
  match_score: number;
  /** The list version screened (`<publication date>#<sha>`; `sandbox` on the sandbox list). */
  list_version: string;
  /**
   * Where the party and the entry both have a date of birth: whether the party's falls inside one
   * of the entry's (`agrees`) or none (`differs`). A difference never lowers the score (OFAC FAQ 5:
   * identifiers judge a hit after it is found); it is reported for the reviewer. Absent otherwise.
   */
  date_of_birth_check?: 'agrees' | 'differs';
  /** The same for the party's country against the entry's nationality, citizenship and address countries. */
  country_check?: 'agrees' | 'differs';
}

/** The optional identifier checks of a hit, present only where both sides had the identifier. */
export function identifierChecks(hit: Pick<SanctionsHit, 'date_of_birth_check' | 'country_check'>) {
  return {
    ...(hit.date_of_birth_check ? { date_of_birth_check: hit.date_of_birth_check } : {}),
    ...(hit.country_check ? { country_check: hit.country_check } : {}),
  };
}

/** At most this many hits per screened party (every list, best first). */
export const MAX_HITS_PER_PARTY = 10;

/** A hit as reported beside the party whose `screenedName` was screened (ownership declarant, travel-rule parties). */
export function reportedMatch(hit: SanctionsHit, screenedName: string) {
  const base = {
    list: hit.list,
    matched_name: hit.matched_name,
    match_score: hit.match_score,
    entry_id: hit.entry_id,
    entry_name: hit.entry_name,
    screened_name: screenedName,
  };
  // The sandbox list's hits (no entry) keep their former shape.
  if (hit.entry_id === null) return base;
  return {
    ...base,
    list_version: hit.list_version,
    alias_strength: hit.alias_strength,
    ...identifierChecks(hit),
  };
}

export interface ScreenOptions {
  /** 0-100: hits at or above it are reported. */
  threshold: number;
}

export class SanctionsUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SanctionsUnavailableError';
  }
}

/** What the provider needs of the running service: the database (snapshots live there) and the clock. */
export interface SanctionsContext {
  db: Db;
  clock: { now(): Date };
}

export type LoadOutcome =
  | { outcome: 'loaded'; version: string; entries: number; added: number; removed: number }
  | { outcome: 'unchanged'; version: string }
  | { outcome: 'skipped'; reason: string };

/** One configured list as staff see it (GET /admin/sanctions/status) and readiness reports it. */
export interface ListStatus {
  list: string;
  name: string;
  /** The URL's origin and path (never its query: the EU's carries a token), or `file`. */
  source: string;
  version: string | null;
  published_at: string | null;
  entry_count: number | null;
  added_count: number | null;
  removed_count: number | null;
  loaded_at: string | null;
  age_seconds: number | null;
  /**
   * No version yet, or not confirmed current (loaded, or its file found unchanged) within
   * SVC_SANCTIONS_MAX_AGE_HOURS: screening then answers 503 (fails closed).
   */
  stale: boolean;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  /** The list server asked to wait (429/503 `Retry-After`, capped): no download before this. */
  retry_not_before: string | null;
}

/**
 * The list server asked to wait (429/503 `Retry-After`, capped): this load made no request, or its
 * request was answered so. The load job retries no earlier than `notBefore`.
 */
export class ListDeferredError extends RetryNotBeforeError {
  constructor(list: string, notBefore: Date, message?: string) {
    super(
      message ?? `${list}: the list server asked us to wait; no attempt before ${notBefore.toISOString()}`,
      notBefore,
    );
    this.name = 'ListDeferredError';
  }
}

export interface SanctionsLists {
  /** False when no list is configured (production without SVC_SANCTIONS_LISTS): screening answers 503. */
  readonly configured: boolean;
  /** The official lists configured, in order (the sandbox list is not one). */
  readonly lists: readonly SanctionsListId[];
  /**
   * Per party, every hit at or above the threshold across the lists, one per entry, best first (at
   * most MAX_HITS_PER_PARTY; empty: none). Throws SanctionsUnavailableError.
   */
  screen(ctx: SanctionsContext, parties: ScreenParty[], opts: ScreenOptions): Promise<SanctionsHit[][]>;
  /** Loads one list into a new version if its content changed; throws (after recording why) on failure. */
  load(ctx: SanctionsContext, list: SanctionsListId): Promise<LoadOutcome>;
  status(ctx: SanctionsContext): Promise<ListStatus[]>;
}
