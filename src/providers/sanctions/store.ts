/**
 * Snapshots in the database, so every node screens against the same version and a restart needs no
 * reload. A new version's entries are written while it is `loading`; one transaction then moves the
 * list's current pointer with a compare-and-set and marks the old version superseded. Entries of
 * superseded versions, of a load that lost the race and of crashed loads are deleted (their metadata
 * rows stay as the history); another node's load in progress is left alone.
 */
import { and, asc, eq, inArray, lt, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  sanctionsListEntries,
  sanctionsListSnapshots,
  sanctionsListState,
} from '../../db/schema/sanctions-lists';
import { newId } from '../../shared/ids';
import type { EntryKind, ListEntry, NameStrength, SanctionsListId } from './port';

/** A load still `loading` this long after it started has crashed: its entries may go. */
const ABANDONED_LOAD_MS = 60 * 60 * 1000;

export interface ListStateRow {
  list: string;
  snapshotId: string | null;
  version: string | null;
  publishedAt: string | null;
  contentSha256: string | null;
  entryCount: number | null;
  addedCount: number | null;
  removedCount: number | null;
  loadedAt: Date | null;
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  etag: string | null;
  lastModified: string | null;
  retryNotBefore: Date | null;
}

/** The state of each list (with its current snapshot's metadata); lists never attempted are absent. */
export async function readListStates(db: Db, lists: readonly string[]): Promise<ListStateRow[]> {
  if (lists.length === 0) return [];
  const s = sanctionsListState;
  const v = sanctionsListSnapshots;
  return db
    .select({
      list: s.list,
      snapshotId: s.currentSnapshotId,
      version: v.version,
      publishedAt: v.publishedAt,
      contentSha256: v.contentSha256,
      entryCount: v.entryCount,
      addedCount: v.addedCount,
      removedCount: v.removedCount,
      loadedAt: v.loadedAt,
      lastAttemptAt: s.lastAttemptAt,
      lastSuccessAt: s.lastSuccessAt,
      lastError: s.lastError,
      lastErrorAt: s.lastErrorAt,
      etag: s.etag,
      lastModified: s.lastModified,
      retryNotBefore: s.retryNotBefore,
    })
    .from(s)
    .leftJoin(v, eq(v.id, s.currentSnapshotId))
    .where(inArray(s.list, [...lists]));
}

/** Stored shape of an entry (short keys: the EU and OFAC lists hold tens of thousands of names). */
interface StoredEntry {
  k: EntryKind;
  n: [string, NameStrength][];
  d: string[];
  c: string[];
}

export async function readEntries(db: Db, snapshotId: string): Promise<ListEntry[]> {
  const rows = await db
    .select({ id: sanctionsListEntries.entryId, data: sanctionsListEntries.data })
    .from(sanctionsListEntries)
    .where(eq(sanctionsListEntries.snapshotId, snapshotId))
    .orderBy(asc(sanctionsListEntries.position));
  return rows.map((r) => {
    const d = r.data as unknown as StoredEntry;
    return {
      id: r.id,
      kind: d.k,
      names: d.n.map(([name, strength]) => ({ name, strength })),
      dobs: d.d,
      countries: d.c,
    };
  });
}

async function entryIds(db: Db, snapshotId: string): Promise<Set<string>> {
  const rows = await db
    .select({ id: sanctionsListEntries.entryId })
    .from(sanctionsListEntries)
    .where(eq(sanctionsListEntries.snapshotId, snapshotId));
  return new Set(rows.map((r) => r.id));
}

/** Records an attempt's outcome on the list's state row (creating it on the first attempt). */
export async function recordAttempt(
  db: Db,
  list: SanctionsListId,
  at: Date,
  outcome:
    | { ok: true; validators?: { etag: string | null; lastModified: string | null } }
    | { ok: false; error: string; retryNotBefore?: Date | null },
): Promise<void> {
  const values = outcome.ok
    ? {
        lastAttemptAt: at,
        lastSuccessAt: at,
        lastError: null,
        lastErrorAt: null,
        retryNotBefore: null,
        updatedAt: at,
        ...(outcome.validators ?? {}),
      }
    : {
        lastAttemptAt: at,
        lastError: outcome.error.slice(0, 1000),
        lastErrorAt: at,
        retryNotBefore: outcome.retryNotBefore ?? null,
        updatedAt: at,
      };
  await db
    .insert(sanctionsListState)
    .values({ list, ...values })
    .onConflictDoUpdate({ target: sanctionsListState.list, set: values });
}

export interface NewVersion {
  list: SanctionsListId;
  version: string;
  publishedAt: string | null;
  contentSha256: string;
  entries: ListEntry[];
}

/**
 * Writes a complete version and makes it current, replacing `expectedCurrent` (null for the first).
 * Returns false when another loader moved the list first (this version is then discarded).
 */
export async function writeVersion(
  db: Db,
  at: Date,
  v: NewVersion,
  expectedCurrent: string | null,
): Promise<{ applied: boolean; added: number; removed: number }> {
  const id = newId();
  const before = expectedCurrent ? await entryIds(db, expectedCurrent) : new Set<string>();
  const after = new Set(v.entries.map((e) => e.id));
  const added = [...after].filter((x) => !before.has(x)).length;
  const removed = [...before].filter((x) => !after.has(x)).length;
  await db.insert(sanctionsListSnapshots).values({
    id,
    list: v.list,
    version: v.version,
    publishedAt: v.publishedAt,
    contentSha256: v.contentSha256,
    entryCount: v.entries.length,
    addedCount: expectedCurrent ? added : v.entries.length,
    removedCount: removed,
    status: 'loading',
    createdAt: at,
  });
  for (let i = 0; i < v.entries.length; i += 1000) {
    await db.insert(sanctionsListEntries).values(
      v.entries.slice(i, i + 1000).map((e, j) => ({
        snapshotId: id,
        position: i + j,
        entryId: e.id,
        data: {
          k: e.kind,
          n: e.names.map((n) => [n.name, n.strength]),
          d: e.dobs,
          c: e.countries,
        } as unknown as Record<string, unknown>,
      })),
    );
  }
  const applied = await db.transaction(async (tx) => {
    const s = sanctionsListState;
    const moved = expectedCurrent
      ? await tx
          .update(s)
          .set({
            currentSnapshotId: id,
            lastAttemptAt: at,
            lastSuccessAt: at,
            lastError: null,
            lastErrorAt: null,
            updatedAt: at,
          })
          .where(and(eq(s.list, v.list), eq(s.currentSnapshotId, expectedCurrent)))
          .returning({ list: s.list })
      : await tx
          .insert(s)
          .values({
            list: v.list,
            currentSnapshotId: id,
            lastAttemptAt: at,
            lastSuccessAt: at,
            updatedAt: at,
          })
          .onConflictDoUpdate({
            target: s.list,
            set: {
              currentSnapshotId: id,
              lastAttemptAt: at,
              lastSuccessAt: at,
              lastError: null,
              lastErrorAt: null,
              updatedAt: at,
            },
            where: sql`${s.currentSnapshotId} is null`,
          })
          .returning({ list: s.list });
    if (moved.length === 0) return false;
    await tx
      .update(sanctionsListSnapshots)
      .set({ status: 'complete', loadedAt: at })
      .where(eq(sanctionsListSnapshots.id, id));
    await tx
      .update(sanctionsListSnapshots)
      .set({ status: 'superseded' })
      .where(
        and(
          eq(sanctionsListSnapshots.list, v.list),
          ne(sanctionsListSnapshots.id, id),
          eq(sanctionsListSnapshots.status, 'complete'),
        ),
      );
    return true;
  });
  // Entries that no node needs any more go: the superseded versions', this load's when another
  // node's won, and those of loads that crashed (still `loading` an hour after they started). Never
  // another node's load in progress (`loading` and recent) nor the current version. A node still
  // reading a version superseded meanwhile sees fewer entries than its count and reads again
  // (adapter.ts, indexFor).
  const snap = sanctionsListSnapshots;
  const dead = db
    .select({ id: snap.id })
    .from(snap)
    .where(
      and(
        eq(snap.list, v.list),
        or(
          eq(snap.status, 'superseded'),
          applied ? sql`false` : eq(snap.id, id),
          and(eq(snap.status, 'loading'), lt(snap.createdAt, new Date(at.getTime() - ABANDONED_LOAD_MS))),
        ),
      ),
    );
  await db.delete(sanctionsListEntries).where(inArray(sanctionsListEntries.snapshotId, dead));
  if (!applied) await db.delete(snap).where(eq(snap.id, id));
  return { applied, added, removed };
}
