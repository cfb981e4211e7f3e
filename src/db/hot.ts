/**
 * Helpers for the hot paths' hand-written statements (Database.query): one SQL text with $n
 * placeholders usable both as a named prepared statement and, through toSql, inside a Drizzle
 * transaction; and the mapping of a raw row back to a table's Drizzle row type.
 */
import { getTableColumns, type SQL, sql, type Table } from 'drizzle-orm';

/** `text` with $1..$n placeholders as a Drizzle SQL object bound to `params`. */
export function toSql(text: string, params: readonly unknown[]): SQL {
  const chunks: SQL[] = [];
  let last = 0;
  for (const m of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, m.index)), sql`${params[Number(m[1]) - 1]}`);
    last = m.index + m[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.join(chunks);
}

/**
 * The table's columns as a select list (`alias.col, ...`), for the named prepared statements: a
 * statement that selects `*` changes its result type when a later version adds a column, and
 * PostgreSQL then refuses its cached plan ("cached plan must not change result type") on every
 * connection that prepared it, so a node of the previous version would fail while the next
 * version's expand migration runs (docs/guides/scaling.md). A named list keeps the result type.
 */
export function columnList(table: Table, alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  return Object.values(getTableColumns(table))
    .map((c) => `${prefix}${c.name}`)
    .join(', ');
}

type Mapper = (raw: Record<string, unknown>) => Record<string, unknown>;
const mappers = new WeakMap<Table, Mapper>();

/** A raw row (snake_case columns, any driver's types) as the table's `$inferSelect` shape. */
export function mapRow<T extends Table>(table: T, raw: Record<string, unknown>): T['$inferSelect'] {
  let mapper = mappers.get(table);
  if (!mapper) {
    const cols = Object.entries(getTableColumns(table)).map(([key, col]) => ({ key, col }));
    mapper = (r) => {
      const out: Record<string, unknown> = {};
      for (const { key, col } of cols) {
        const v = r[col.name];
        // node-postgres hands timestamps over as Date already; Drizzle's mappers expect strings.
        out[key] = v === null || v === undefined ? null : v instanceof Date ? v : col.mapFromDriverValue(v);
      }
      return out;
    };
    mappers.set(table, mapper);
  }
  return mapper(raw) as T['$inferSelect'];
}

/**
 * A subquery that makes the commit of the statement's own (implicit) transaction asynchronous:
 * `set_config(..., true)` lasts until that transaction ends, and PostgreSQL reads
 * synchronous_commit when it commits. For a hot path's intermediate writes whose loss in a database
 * crash is harmless, such as an idempotency claim (a stale claim is taken over; a lost one is made
 * again) or the sandbox network's session: they are visible to every other connection at once, and
 * the synchronous commit of the write that follows (the payment) flushes the WAL up to and
 * including them, so they are durable before the client gets an answer. One WAL flush per payment
 * creation instead of three.
 */
export const ASYNC_COMMIT = `(select set_config('synchronous_commit', 'off', true))`;
