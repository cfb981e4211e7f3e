import { index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const SANCTIONS_SNAPSHOT_STATUSES = ['loading', 'complete', 'superseded'] as const;
export type SanctionsSnapshotStatus = (typeof SANCTIONS_SNAPSHOT_STATUSES)[number];

/**
 * One version of an official sanctions list (docs/vendors/sanctions-lists.md). Its entries are written
 * while it is `loading`; it becomes the list's current version only when complete (one compare-and-set
 * on `sanctions_list_state`), so a half-loaded list is never screened against. Platform data, not a
 * client's: every client screens against the same versions.
 */
export const sanctionsListSnapshots = pgTable(
  'sanctions_list_snapshots',
  {
    id: idColumn('id'),
    list: text('list').notNull(),
    /** `<publication date>#<first 12 hex of the file's SHA-256>`. */
    version: text('version').notNull(),
    /** The list's own publication date, when the file states one. */
    publishedAt: text('published_at'),
    contentSha256: text('content_sha256').notNull(),
    entryCount: integer('entry_count').notNull(),
    /** Entries new since the previous version, and entries gone from it. */
    addedCount: integer('added_count').notNull().default(0),
    removedCount: integer('removed_count').notNull().default(0),
    status: text('status').$type<SanctionsSnapshotStatus>().notNull(),
    /** When the snapshot became current (null while loading). */
    loadedAt: ts('loaded_at'),
    createdAt: createdAt(),
  },
  (t) => [index('sanctions_list_snapshots_list_idx').on(t.list, t.createdAt)],
);

/** The entries of a snapshot, as the list's mapping read them (names with strength, DOBs, countries). */
export const sanctionsListEntries = pgTable(
  'sanctions_list_entries',
  {
    snapshotId: uuid('snapshot_id').notNull(),
    position: integer('position').notNull(),
    entryId: text('entry_id').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.snapshotId, t.position] })],
);

/** Per list: the current snapshot, and the outcome of the last load attempt. */
export const sanctionsListState = pgTable('sanctions_list_state', {
  list: text('list').primaryKey(),
  currentSnapshotId: uuid('current_snapshot_id'),
  lastAttemptAt: ts('last_attempt_at'),
  lastSuccessAt: ts('last_success_at'),
  /** The last failed load's reason (cleared by the next success). */
  lastError: text('last_error'),
  lastErrorAt: ts('last_error_at'),
  /**
   * The HTTP validators (ETag, Last-Modified) of the download the current version was read from (or
   * last found unchanged): the next read is a conditional GET. Null for files and servers without them.
   */
  etag: text('etag'),
  lastModified: text('last_modified'),
  /**
   * The list server answered 429 or 503 with `Retry-After`: no download before this (capped by
   * SVC_SANCTIONS_MAX_RETRY_AFTER_SECONDS). Cleared by the next success.
   */
  retryNotBefore: ts('retry_not_before'),
  updatedAt: updatedAt(),
});

/** Whether a party's name was screened (travel-rule transfers, ownership declarations). */
export type SanctionsScreening = 'screened' | 'not_configured' | 'unavailable';

/** A sanctions hit as stored beside a screened party (wallet-ownership declarant, travel-rule parties). */
export interface SanctionsNameMatch {
  list: string;
  matched_name: string;
  match_score: number;
  entry_id: string | null;
  entry_name: string | null;
  screened_name: string;
  /** The list version screened (absent on hits stored before it was recorded); likewise below. */
  list_version?: string;
  alias_strength?: 'primary' | 'strong' | 'weak';
  date_of_birth_check?: 'agrees' | 'differs';
  country_check?: 'agrees' | 'differs';
}
