/**
 * Rolling deploy of the allowlist keyed by hit (migration 0033, made safe by 0038): a node of the
 * previous release clears a match with its own statements, taken verbatim from that release
 * (`git show 4657052^:src/modules/monitoring/monitoring.repo.ts`, `addToAllowlist` and
 * `allowlistKeys`, as drizzle renders them). After every migration they still succeed, the old
 * node still reads its clearance, and this release's nodes honour it too (0038's trigger writes the
 * keyed rows at once).
 */
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { monitoredTransactions, monitoringSanctionsAllowlist } from '../../src/db/schema/index';
import { newId } from '../../src/shared/ids';
import { clientApp } from '../helpers/suites';
import { allowlistRows, storeSanctionsMatches, submit } from './fixtures';

const s = clientApp();

/** The previous release's `addToAllowlist` for one row (drizzle's text, its parameters bound). */
const oldClear = (transactionId: string, nameKey: string, identifier: string) =>
  s.ctx.deps.db.execute(
    sql`insert into "monitoring_sanctions_allowlist" ("id", "client_id", "name_key", "identifier", "monitored_transaction_id", "created_by_account_id", "created_at") values (${newId()}, ${s.owner.clientId}, ${nameKey}, ${identifier}, ${transactionId}, ${null}, ${new Date().toISOString()}) on conflict do nothing`,
  );

/** The previous release's `allowlistKeys`. */
const oldRead = async (nameKey: string) => {
  const res = await s.ctx.deps.db.execute(
    sql`select "name_key", "identifier" from "monitoring_sanctions_allowlist" where ("monitoring_sanctions_allowlist"."client_id" = ${s.owner.clientId} and "monitoring_sanctions_allowlist"."name_key" in (${nameKey}))`,
  );
  return (res as unknown as { rows: { name_key: string; identifier: string }[] }).rows;
};

const keyedRows = (transactionId: string) => allowlistRows(s.ctx, s.owner.clientId, transactionId);

describe('a clearance by a node of the previous release, after every migration', () => {
  it('succeeds (twice: its ON CONFLICT has no target), reads back, and clears the hit on this release', async () => {
    const cp = { counterparty: { name: 'Olga  SANCTIONED', account_identifier: 'DE91' } };
    const t = await submit(s.ctx, s.owner, cp);
    expect(t.sanctions_hit).toBe(true);

    await oldClear(t.monitored_transaction_id, 'olga sanctioned', 'DE91');
    await oldClear(t.monitored_transaction_id, 'olga sanctioned', 'DE91');
    expect(await oldRead('olga sanctioned')).toEqual([
      { name_key: 'olga sanctioned', identifier: 'DE91' },
      { name_key: 'olga sanctioned', identifier: 'DE91' },
    ]);
    const rows = await keyedRows(t.monitored_transaction_id);
    expect(rows.filter((r) => r.list !== '')).toEqual([
      {
        nameKey: 'olga sanctioned',
        identifier: 'DE91',
        list: 'Sandbox sanctions list',
        entryId: '',
        listVersion: null,
      },
    ]);
    expect((await submit(s.ctx, s.owner, cp)).sanctions_hit).toBe(false);
  });

  it('an official-list hit cleared under its matched name is keyed on the screened party and the entry', async () => {
    const t = await submit(s.ctx, s.owner, {
      counterparty: { name: 'Bob Counterparty', account_identifier: 'FR55' },
    });
    await storeSanctionsMatches(
      s.ctx,
      t.monitored_transaction_id,
      [
        {
          list: 'OFAC SDN List',
          matched_name: 'Robert COUNTERPARTI',
          match_score: 90,
          entry_id: '7001',
          entry_name: 'Robert COUNTERPARTI',
          screened_name: 'Bob Counterparty',
          list_version: '2026-11-20#0123456789ab',
        },
      ],
      true,
    );
    // The previous release keyed a cleared hit on its matched name; the identifier it computed is
    // then the subject's (the matched name is not the counterparty's).
    const [row] = await s.ctx.deps.db
      .select({ subjectKey: monitoredTransactions.subjectKey })
      .from(monitoredTransactions)
      .where(eq(monitoredTransactions.id, t.monitored_transaction_id));
    await oldClear(t.monitored_transaction_id, 'robert counterparti', row!.subjectKey);

    const rows = await keyedRows(t.monitored_transaction_id);
    expect(rows.filter((r) => r.list !== '')).toEqual([
      {
        nameKey: 'bob counterparty',
        identifier: 'FR55',
        list: 'OFAC SDN List',
        entryId: '7001',
        listVersion: '2026-11-20#0123456789ab',
      },
    ]);
  });

  it('a row of this release (keyed) fires nothing', async () => {
    const t = await submit(s.ctx, s.owner, {
      counterparty: { name: 'Ivan SANCTIONED', account_identifier: 'DE92' },
    });
    await s.ctx.deps.db.insert(monitoringSanctionsAllowlist).values({
      clientId: s.owner.clientId,
      nameKey: 'ivan sanctioned',
      identifier: 'DE92',
      list: 'Sandbox sanctions list',
      monitoredTransactionId: t.monitored_transaction_id,
    });
    expect(await keyedRows(t.monitored_transaction_id)).toHaveLength(1);
  });
});
