/**
 * The password login's reads as named prepared statements (Database.query): the throttle rows of
 * the email and the IP, then the account with its client. Through Drizzle's builder these were the
 * largest share of a login's main-thread time after argon2 (issue 12's login profile): the select
 * of two whole tables was rebuilt, and its rows mapped into nested objects, on every attempt.
 */
import { getTableColumns, type Table } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { mapRow } from '../../../db/hot';
import { accounts, authThrottles, clients } from '../../../db/schema/index';

const THROTTLES =
  'select key, failures, window_started_at, locked_until from auth_throttles where key = any($1::text[])';

export interface LoginThrottle {
  key: string;
  failures: number;
  windowStartedAt: Date;
  lockedUntil: Date | null;
}

export async function findLoginThrottles(database: Database, keys: string[]): Promise<LoginThrottle[]> {
  const rows = await database.query<Record<string, unknown>>('login_throttles', THROTTLES, [keys]);
  return rows.map((r) => {
    const row = mapRow(authThrottles, r);
    return {
      key: row.key,
      failures: row.failures,
      windowStartedAt: row.windowStartedAt,
      lockedUntil: row.lockedUntil,
    };
  });
}

/** `alias.col as "alias.col"` for every column of the table, so two tables' columns never collide. */
const prefixed = (table: Table, alias: string) =>
  Object.values(getTableColumns(table))
    .map((c) => `${alias}."${c.name}" as "${alias}.${c.name}"`)
    .join(', ');

const ACCOUNT_WITH_CLIENT = `select ${prefixed(accounts, 'a')}, ${prefixed(clients, 'c')}
  from accounts a join clients c on c.id = a.client_id
  where lower(a.email) = $1`;

/** The part of a prefixed row that belongs to `alias`, keyed by the table's own column names. */
function part(raw: Record<string, unknown>, alias: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const p = `${alias}.`;
  for (const k in raw) if (k.startsWith(p)) out[k.slice(p.length)] = raw[k];
  return out;
}

export interface AccountWithClient {
  account: typeof accounts.$inferSelect;
  client: typeof clients.$inferSelect;
}

/** The account whose email is `email` (already trimmed and lower-cased), with its client. */
export async function findAccountForLogin(
  database: Database,
  email: string,
): Promise<AccountWithClient | undefined> {
  const [raw] = await database.query<Record<string, unknown>>('login_account', ACCOUNT_WITH_CLIENT, [email]);
  if (!raw) return undefined;
  return { account: mapRow(accounts, part(raw, 'a')), client: mapRow(clients, part(raw, 'c')) };
}
