/**
 * Partitioned history on PostgreSQL (docs/guides/scaling.md, "Partitioned history"). The append-only
 * tables listed in HISTORY_TABLES are range-partitioned by month on their primary key: every id is a
 * UUIDv7 (src/shared/ids.ts), whose first 48 bits are the creation time in milliseconds, so the
 * primary key carries the time and stays the partition key. Primary keys, ON CONFLICT (id), lookups
 * and updates by id and the foreign keys that reference these tables keep working unchanged, and a
 * lookup by id reads one partition.
 *
 * The migrations create plain tables on both engines; on PostgreSQL the maintenance job
 * (`history-partitions`, src/workers) converts them in place and keeps partitions created ahead;
 * PGlite keeps plain tables. Every step is idempotent, re-reads the catalog under a transaction-scoped
 * advisory lock, and waits at most LOCK_TIMEOUT for any lock (then gives up and is tried again).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, type DbOrTx, rowsOf } from './client';

/** In conversion order: a table whose rows another table references comes before it. */
export const HISTORY_TABLES = [
  'transaction_status_events',
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'activity_logs',
] as const;
export type HistoryTable = (typeof HISTORY_TABLES)[number];

/** Monthly partitions kept created ahead of the current month. */
export const MONTHS_AHEAD = 3;
/** Advisory lock of the maintenance (the migrations use 724011). */
export const PARTITION_LOCK = 724012;
/**
 * The longest wait for any one lock in a maintenance step, well below PostgreSQL's deadlock_timeout
 * (1 s by default). A step holds the locks it already has while it waits: if a writer is waiting for
 * one of those and holds the one the step wants, the step gives up first (lock_not_available), so the
 * writer is never the one a deadlock check aborts; it waited at most this long. A DDL statement queued
 * behind a long query would also make every writer queue behind it: it gives up after as long.
 */
export const LOCK_TIMEOUT = '200ms';
/** A step that gave up on a lock is tried again this many times, after STEP_RETRY_MS on average. */
export const STEP_ATTEMPTS = 25;
export const STEP_RETRY_MS = 200;
/**
 * A partition is dropped by retention only when its upper bound is this far past the cutoff: an id's
 * time is its node's clock when it was made, the row's own time column the database's or the
 * caller's; the emptiness check on that column decides in the end.
 */
export const DROP_MARGIN_MS = 86_400_000;

const LEGACY_SUFFIX = '_legacy';
const BOUND_CHECK_SUFFIX = '_pbound';

/** The smallest UUID whose UUIDv7 time is `at`: 48 bits of milliseconds, then zeros. */
export function uuidBound(at: Date): string {
  const hex = at.getTime().toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** The UUIDv7 time of an id (or of a bound). */
export function uuidTime(id: string): Date {
  return new Date(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16));
}

/** First instant (UTC) of the month of `d`, `months` later. */
export function monthStart(d: Date, months = 0): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
}

export const partitionName = (table: string, month: Date): string =>
  `${table}_p${month.toISOString().slice(0, 7).replace('-', '')}`;
export const defaultPartitionName = (table: string): string => `${table}_default`;
export const legacyPartitionName = (table: string): string => `${table}${LEGACY_SUFFIX}`;

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

async function rows<T>(db: DbOrTx, text: string | SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(typeof text === 'string' ? sql.raw(text) : text));
}

/** One step: a transaction under the maintenance's advisory lock, with a bounded lock wait. */
async function step<T>(db: Db, fn: (tx: DbOrTx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        await tx.execute(sql.raw(`select pg_advisory_xact_lock(${PARTITION_LOCK})`));
        await tx.execute(sql.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`));
        return fn(tx);
      });
    } catch (err) {
      const code =
        (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
      if (attempt >= STEP_ATTEMPTS || (code !== LOCK_NOT_AVAILABLE && code !== DEADLOCK)) throw err;
      await new Promise((resolve) => setTimeout(resolve, STEP_RETRY_MS * (0.5 + Math.random())));
    }
  }
}

const LOCK_NOT_AVAILABLE = '55P03';
const DEADLOCK = '40P01';

/**
 * Takes the locks a partition DDL statement on `table` needs, before it runs and in the order the
 * service's writers take them: the tables its foreign keys reference first (SHARE ROW EXCLUSIVE, as
 * ADD FOREIGN KEY and a partition's cloned keys take them: a payment, then its timeline entry; an
 * event, then its deliveries, then their attempts), then the table and `also` (ACCESS EXCLUSIVE).
 * Taken later by the statement itself, the referenced table's lock deadlocked with a writer that held
 * it and waited for this table.
 */
async function lockForDdl(
  tx: DbOrTx,
  table: string,
  also: string[] = [],
  referencedMode = 'share row exclusive',
): Promise<void> {
  const referenced = await rows<{ target: string }>(
    tx,
    sql`select distinct confrelid::regclass::text as target from pg_constraint
         where conrelid = to_regclass(${`public.${ident(table)}`}) and contype = 'f' and conparentid = 0
           and confrelid <> conrelid`,
  );
  if (referenced.length > 0)
    await tx.execute(
      sql.raw(`lock table ${referenced.map((r) => r.target).join(', ')} in ${referencedMode} mode`),
    );
  await tx.execute(sql.raw(`lock table ${[table, ...also].map(ident).join(', ')} in access exclusive mode`));
}

export async function isPartitioned(db: DbOrTx, table: string): Promise<boolean> {
  const r = await rows<{ kind: string }>(
    db,
    sql`select relkind::text as kind from pg_class
         where oid = to_regclass(${`public.${ident(table)}`})`,
  );
  return r[0]?.kind === 'p';
}

export interface PartitionInfo {
  name: string;
  /** Inclusive lower bound (null: MINVALUE, or the default partition). */
  from: string | null;
  /** Exclusive upper bound (null: the default partition). */
  to: string | null;
  isDefault: boolean;
}

/** The partitions of a partitioned table, oldest first, the default last. */
export async function listPartitions(db: DbOrTx, table: string): Promise<PartitionInfo[]> {
  const r = await rows<{ name: string; bound: string }>(
    db,
    sql`select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
          from pg_inherits i join pg_class c on c.oid = i.inhrelid
         where i.inhparent = to_regclass(${`public.${ident(table)}`})`,
  );
  const out = r.map(({ name, bound }): PartitionInfo => {
    if (bound === 'DEFAULT') return { name, from: null, to: null, isDefault: true };
    const m = /FROM \((.+)\) TO \((.+)\)/.exec(bound);
    const unquote = (v: string | undefined) =>
      v && v !== 'MINVALUE' && v !== 'MAXVALUE' ? v.replaceAll("'", '') : null;
    return { name, from: unquote(m?.[1]), to: unquote(m?.[2]), isDefault: false };
  });
  return out.sort((a, b) =>
    a.isDefault !== b.isDefault ? (a.isDefault ? 1 : -1) : (a.from ?? '').localeCompare(b.from ?? ''),
  );
}

interface TableShape {
  indexes: { name: string; def: string; unique: boolean; primary: boolean; columns: string[] }[];
  checks: { name: string; def: string }[];
  foreignKeys: { name: string; def: string }[];
  incoming: { table: string; name: string; def: string }[];
  triggers: { name: string; def: string }[];
}

/** Indexes, constraints and triggers of a plain table, as statements naming the table itself. */
async function shapeOf(db: DbOrTx, table: string): Promise<TableShape> {
  const reg = `public.${ident(table)}`;
  const indexes = await rows<{
    name: string;
    def: string;
    unique: boolean;
    primary: boolean;
    columns: string[];
  }>(
    db,
    sql`select c.relname as name, pg_get_indexdef(i.indexrelid) as def, i.indisunique as unique,
               i.indisprimary as primary,
               array(select a.attname::text from unnest(i.indkey) k join pg_attribute a
                      on a.attrelid = i.indrelid and a.attnum = k) as columns
          from pg_index i join pg_class c on c.oid = i.indexrelid
         where i.indrelid = to_regclass(${reg})`,
  );
  const constraints = await rows<{ name: string; type: string; def: string; table: string }>(
    db,
    sql`select conname as name, contype::text as type, pg_get_constraintdef(oid) as def,
               conrelid::regclass::text as table
          from pg_constraint
         where conparentid = 0
           and ((conrelid = to_regclass(${reg}) and contype in ('c', 'f'))
             or (confrelid = to_regclass(${reg}) and contype = 'f' and conrelid <> confrelid))`,
  );
  const triggers = await rows<{ name: string; def: string }>(
    db,
    sql`select tgname as name, pg_get_triggerdef(oid) as def from pg_trigger
         where tgrelid = to_regclass(${reg}) and not tgisinternal`,
  );
  const own = (c: { table: string }) => c.table.replaceAll('"', '') === table;
  return {
    indexes,
    checks: constraints.filter((c) => c.type === 'c' && own(c) && !c.name.endsWith(BOUND_CHECK_SUFFIX)),
    foreignKeys: constraints.filter((c) => c.type === 'f' && own(c)),
    incoming: constraints.filter((c) => c.type === 'f' && !own(c)),
    triggers,
  };
}

/**
 * The first bound of the monthly partitions when a table is converted: the rows already there stay
 * in one partition below it. At least a week away, so that no id made while the conversion runs (its
 * bound check is already in force) passes it.
 */
export function conversionBound(now: Date): Date {
  return monthStart(new Date(now.getTime() + 7 * 86_400_000), 1);
}

export interface MaintenanceResult {
  converted: string[];
  created: string[];
  /** Months whose partition could not be made: the default partition holds rows of them. */
  blocked: string[];
}

/**
 * Converts one plain table into a partitioned one, keeping every row, index name, constraint and
 * trigger. Three steps, each idempotent (a second runner finds it done):
 *  1. a CHECK (id < bound) NOT VALID: new rows must satisfy it (no scan, a brief lock);
 *  2. VALIDATE it: one scan, while reads and writes go on;
 *  3. the swap, under a brief exclusive lock and no scan: the table is renamed `<table>_legacy`, a
 *     partitioned table takes its name (columns, defaults, primary key, indexes, foreign keys,
 *     triggers), the old table is attached as the partition below the bound (the validated check
 *     spares the scan), the foreign keys that referenced it are pointed at the new table (NOT VALID,
 *     validated afterwards while writes go on), and a default partition catches what no range covers.
 * Nodes of the previous release keep running the same statements against the same names.
 */
export async function convertTable(db: Db, table: HistoryTable, now: Date): Promise<boolean> {
  const bound = uuidBound(conversionBound(now));
  const checkName = `${table}${BOUND_CHECK_SUFFIX}`;
  if (await isPartitioned(db, table)) return false;

  // 1. The bound check, not yet validated.
  const existing = await step(db, async (tx) => {
    if (await isPartitioned(tx, table)) return null;
    const found = await rows<{ def: string; valid: boolean }>(
      tx,
      sql`select pg_get_constraintdef(oid) as def, convalidated as valid from pg_constraint
           where conrelid = to_regclass(${`public.${ident(table)}`}) and conname = ${checkName}`,
    );
    const bound0 = found[0] && /'([0-9a-f-]{36})'/.exec(found[0].def)?.[1];
    // A bound made by an earlier run whose swap never happened (its lock kept timing out) is
    // replaced before ids can reach it: a row past it would be refused.
    if (found[0] && bound0 && uuidTime(bound0).getTime() > now.getTime() + 86_400_000) return found[0];
    if (found[0])
      await tx.execute(sql.raw(`alter table ${ident(table)} drop constraint ${ident(checkName)}`));
    await tx.execute(
      sql.raw(
        `alter table ${ident(table)} add constraint ${ident(checkName)} check (id < ${literal(bound)}) not valid`,
      ),
    );
    return { def: `CHECK ((id < '${bound}'::uuid))`, valid: false };
  });
  if (!existing) return false;

  // 2. Validation: SHARE UPDATE EXCLUSIVE, so the scan does not hold writers up.
  if (!existing.valid)
    await step(db, async (tx) => {
      await tx.execute(sql.raw(`alter table ${ident(table)} validate constraint ${ident(checkName)}`));
    });

  // 3. The swap.
  const swapped = await step(db, async (tx) => {
    if (await isPartitioned(tx, table)) return false;
    // The bound as it is now (another runner may have replaced it since step 1).
    const [check] = await rows<{ def: string }>(
      tx,
      sql`select pg_get_constraintdef(oid) as def from pg_constraint
           where conrelid = to_regclass(${`public.${ident(table)}`}) and conname = ${checkName} and convalidated`,
    );
    const checkBound = check && /'([0-9a-f-]{36})'/.exec(check.def)?.[1];
    if (!checkBound) return false; // not validated yet: the next run finishes it
    const shape = await shapeOf(tx, table);
    const badUnique = shape.indexes.find((i) => i.unique && !i.columns.includes('id'));
    if (badUnique)
      throw new Error(`${table}: unique index ${badUnique.name} lacks the partition key (id); not converted`);
    const referencing = [...new Set(shape.incoming.map((c) => c.table.replaceAll('"', '')))];
    // ATTACH merges the old table's foreign keys into the new table's, which replaces their triggers
    // on the referenced tables (ACCESS EXCLUSIVE there, for the few milliseconds of the swap).
    await lockForDdl(tx, table, referencing, 'access exclusive');
    const legacy = legacyPartitionName(table);
    await tx.execute(sql.raw(`alter table ${ident(table)} rename to ${ident(legacy)}`));
    for (const i of shape.indexes)
      await tx.execute(sql.raw(`alter index ${ident(i.name)} rename to ${ident(legacyName(i.name))}`));
    for (const t of shape.triggers)
      await tx.execute(sql.raw(`drop trigger ${ident(t.name)} on ${ident(legacy)}`));

    await tx.execute(
      sql.raw(`create table ${ident(table)} (like ${ident(legacy)} including defaults including generated
                 including identity including storage including comments) partition by range (id)`),
    );
    const pk = shape.indexes.find((i) => i.primary);
    if (pk)
      await tx.execute(
        sql.raw(`alter table ${ident(table)} add constraint ${ident(pk.name)} primary key (id)`),
      );
    for (const i of shape.indexes.filter((x) => !x.primary)) await tx.execute(sql.raw(i.def));
    for (const c of shape.checks)
      await tx.execute(sql.raw(`alter table ${ident(table)} add constraint ${ident(c.name)} ${c.def}`));
    // A partitioned table's foreign keys are always validated (nothing to check while it is empty).
    for (const c of shape.foreignKeys)
      await tx.execute(
        sql.raw(
          `alter table ${ident(table)} add constraint ${ident(c.name)} ${c.def.replace(/ NOT VALID$/, '')}`,
        ),
      );
    for (const t of shape.triggers) await tx.execute(sql.raw(t.def));
    await tx.execute(
      sql.raw(
        `alter table ${ident(table)} attach partition ${ident(legacy)} for values from (minvalue) to (${literal(checkBound)})`,
      ),
    );
    for (const c of shape.incoming) {
      const other = c.table.replaceAll('"', '');
      await tx.execute(sql.raw(`alter table ${ident(other)} drop constraint ${ident(c.name)}`));
      const notValid = (await isPartitioned(tx, other)) ? '' : ' not valid';
      await tx.execute(
        sql.raw(`alter table ${ident(other)} add constraint ${ident(c.name)} ${c.def}${notValid}`),
      );
    }
    await tx.execute(
      sql.raw(`create table ${ident(defaultPartitionName(table))} partition of ${ident(table)} default`),
    );
    return true;
  });
  if (!swapped) return false;
  await validateForeignKeys(db, table);
  await db.execute(sql.raw(`analyze ${ident(table)}`));
  return true;
}

/** Index names stay the table's: the legacy partition's get a suffix (63 bytes at most). */
function legacyName(name: string): string {
  return `${name.slice(0, 63 - LEGACY_SUFFIX.length)}${LEGACY_SUFFIX}`;
}

/** Validates the foreign keys left NOT VALID by a swap (a scan of the referencing table, writes go on). */
async function validateForeignKeys(db: Db, table: string): Promise<void> {
  const pending = await rows<{ table: string; name: string }>(
    db,
    sql`select conrelid::regclass::text as table, conname as name from pg_constraint
         where confrelid = to_regclass(${`public.${ident(table)}`}) and contype = 'f' and not convalidated
           and conparentid = 0`,
  );
  for (const c of pending)
    await step(db, async (tx) => {
      await tx.execute(sql.raw(`alter table ${c.table} validate constraint ${ident(c.name)}`));
    });
}

/**
 * Creates the monthly partition [month, next month) unless it exists or the legacy partition covers
 * it. When the default partition already holds a row of that month (an id made by a clock months
 * ahead), PostgreSQL would refuse the new range: the month is reported as blocked and its rows keep
 * landing in the default partition, where every statement still finds them (the guide says how to
 * move them by hand).
 */
export async function createMonthPartition(
  db: Db,
  table: HistoryTable,
  month: Date,
): Promise<{ created: string } | { blocked: string } | null> {
  return step(db, async (tx) => {
    const parts = await listPartitions(tx, table);
    const from = uuidBound(month);
    const to = uuidBound(monthStart(month, 1));
    if (parts.some((p) => !p.isDefault && (p.from ?? '') <= from && p.to !== null && p.to >= to)) return null;
    // A month the partition below covers in part starts where that one ends.
    const below = parts.filter((p) => !p.isDefault && p.to !== null && p.to > from && p.to < to);
    const lo = below.at(-1)?.to ?? from;
    const name = partitionName(table, month);
    const def = parts.find((p) => p.isDefault);
    if (def) {
      const stray = await rows(
        tx,
        `select 1 from ${ident(def.name)} where id >= ${literal(lo)} and id < ${literal(to)} limit 1`,
      );
      if (stray.length > 0) return { blocked: name };
    }
    await lockForDdl(tx, table);
    await tx.execute(
      sql.raw(
        `create table ${ident(name)} partition of ${ident(table)} for values from (${literal(lo)}) to (${literal(to)})`,
      ),
    );
    return { created: name };
  });
}

/**
 * The maintenance run (PostgreSQL only): converts the tables still plain, then makes sure the
 * partitions of this month and the next MONTHS_AHEAD months exist.
 */
export async function maintainHistoryPartitions(db: Db, now: Date): Promise<MaintenanceResult> {
  const result: MaintenanceResult = { converted: [], created: [], blocked: [] };
  for (const table of HISTORY_TABLES) {
    if (await convertTable(db, table, now)) result.converted.push(table);
    for (let m = 0; m <= MONTHS_AHEAD; m++) {
      const r = await createMonthPartition(db, table, monthStart(now, m));
      if (r && 'created' in r) result.created.push(r.created);
      if (r && 'blocked' in r) result.blocked.push(r.blocked);
    }
  }
  return result;
}

/**
 * Retention by partition: drops each partition of `table` whose every row is past `cutoff` (its
 * upper bound at least DROP_MARGIN_MS before the cutoff, and no row at or after the cutoff by
 * `timeColumn`, an indexed column). Returns the rows dropped. A plain table (PGlite, or not converted
 * yet) returns 0: the row sweep does the work.
 */
export async function dropExpiredPartitions(
  db: Db,
  table: HistoryTable,
  timeColumn: string,
  cutoff: Date,
): Promise<number> {
  if (!(await isPartitioned(db, table))) return 0;
  let dropped = 0;
  for (const p of await listPartitions(db, table)) {
    if (p.isDefault || p.to === null) continue;
    if (uuidTime(p.to).getTime() + DROP_MARGIN_MS > cutoff.getTime()) continue;
    dropped += await step(db, async (tx) => {
      const still = await listPartitions(tx, table);
      if (!still.some((s) => s.name === p.name)) return 0;
      const live = await rows(
        tx,
        sql.raw(
          `select 1 from ${ident(p.name)} where ${ident(timeColumn)} >= ${literal(cutoff.toISOString())}::timestamptz limit 1`,
        ),
      );
      if (live.length > 0) return 0;
      const [count] = await rows<{ n: number }>(
        tx,
        sql.raw(`select count(*)::int as n from ${ident(p.name)}`),
      );
      await lockForDdl(tx, table);
      await tx.execute(sql.raw(`alter table ${ident(table)} detach partition ${ident(p.name)}`));
      await tx.execute(sql.raw(`drop table ${ident(p.name)}`));
      return Number(count?.n ?? 0);
    });
  }
  return dropped;
}
