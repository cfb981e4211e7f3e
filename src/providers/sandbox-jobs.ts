/**
 * Scheduled notifications of the sandbox simulators (screening, travel rule): rows with a `due_at`
 * and a `delivered_at`, claimed with FOR UPDATE SKIP LOCKED so two nodes never send one twice.
 */
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/client';

export type SandboxJobTable = 'sandbox_screening_jobs' | 'sandbox_travel_rule_jobs';

/** Marks up to `limit` due jobs delivered and returns their payloads, in due order. */
export async function claimDueSandboxJobs(
  db: Db,
  table: SandboxJobTable,
  now: Date,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const t = sql.identifier(table);
  return db.transaction(async (tx) => {
    const res = await tx.execute(sql`
      select id, payload from ${t}
      where delivered_at is null and due_at is not null and due_at <= ${now.toISOString()}::timestamptz
      order by due_at limit ${limit} for update skip locked`);
    const rows = rowsOf<{ id: string; payload: Record<string, unknown> }>(res);
    if (rows.length > 0)
      await tx.execute(sql`
        update ${t} set delivered_at = ${now.toISOString()}::timestamptz
        where id in (${sql.join(
          rows.map((r) => sql`${r.id}::uuid`),
          sql`, `,
        )})`);
    return rows.map((r) => r.payload);
  });
}
