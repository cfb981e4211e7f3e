/**
 * The sanctions allowlist keyed by the cleared hit (list and entry, review finding 4): rows cleared
 * before the key existed (`list` '') are copied by migration 0033 to one keyed row per hit of the
 * transaction they were cleared on, and clear nothing by themselves. The migration's copy statement
 * runs again here over rows written the old way before 0038 (whose trigger copies new ones at once:
 * allowlist-rollout.test.ts).
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { monitoringSanctionsAllowlist } from '../../src/db/schema/index';
import { newId } from '../../src/shared/ids';
import { clientApp } from '../helpers/suites';
import { allowlistRows, storeSanctionsMatches, submit } from './fixtures';

const MIGRATION = new URL('../../drizzle/0033_monitoring_allowlist_keyed_by_hit.sql', import.meta.url);
const copyStatement = () => {
  const parts = readFileSync(MIGRATION, 'utf8').split('--> statement-breakpoint');
  return parts[parts.length - 1]!.replace(/^\s*--.*$/gm, '').trim();
};

const s = clientApp();

/** A row written before migration 0038's rollout trigger existed (which copies such rows at once). */
const legacyRow = async (transactionId: string, nameKey: string, identifier: string) => {
  const t = sql.raw('"monitoring_sanctions_allowlist"');
  await s.ctx.deps.db.execute(sql`ALTER TABLE ${t} DISABLE TRIGGER monitoring_allowlist_copy_unkeyed`);
  try {
    await s.ctx.deps.db.insert(monitoringSanctionsAllowlist).values({
      id: newId(),
      clientId: s.owner.clientId,
      nameKey,
      identifier,
      monitoredTransactionId: transactionId,
      createdAt: new Date(),
    });
  } finally {
    await s.ctx.deps.db.execute(sql`ALTER TABLE ${t} ENABLE TRIGGER monitoring_allowlist_copy_unkeyed`);
  }
};

describe('allowlist rows from before the hit key', () => {
  it('clear nothing alone, and are copied to keyed rows from the cleared transaction', async () => {
    const cp = { counterparty: { name: 'Irina SANCTIONED', account_identifier: 'DE77' } };
    const t = await submit(s.ctx, s.owner, cp);
    expect(t.sanctions_hit).toBe(true);
    await legacyRow(t.monitored_transaction_id, 'irina sanctioned', 'DE77');
    // An old row alone no longer clears the hit.
    expect((await submit(s.ctx, s.owner, cp)).sanctions_hit).toBe(true);

    // An official-list hit stored on another cleared transaction (with the party's screened name).
    const t2 = await submit(s.ctx, s.owner, {
      counterparty: { name: 'Petr SANCTIONED', account_identifier: 'DE78' },
    });
    await storeSanctionsMatches(s.ctx, t2.monitored_transaction_id, [
      {
        list: 'OFAC SDN List',
        matched_name: 'Pyotr IVANOV',
        match_score: 91,
        entry_id: '100',
        entry_name: 'Pyotr IVANOV',
        screened_name: 'Petr  Ivanov',
        list_version: '2026-11-02#abcdef012345',
      },
      {
        list: 'UK Sanctions List',
        matched_name: 'Someone Else',
        match_score: 88,
        entry_id: 'X1',
        entry_name: 'Someone Else',
        screened_name: 'Someone Else',
      },
    ]);
    await legacyRow(t2.monitored_transaction_id, 'petr ivanov', 'DE78');

    await s.ctx.deps.db.execute(sql.raw(copyStatement()));
    await s.ctx.deps.db.execute(sql.raw(copyStatement())); // idempotent

    const rows = await allowlistRows(s.ctx, s.owner.clientId);
    expect(rows.sort((a, b) => `${a.nameKey}${a.list}`.localeCompare(`${b.nameKey}${b.list}`))).toEqual([
      { nameKey: 'irina sanctioned', identifier: 'DE77', list: '', entryId: '', listVersion: null },
      {
        nameKey: 'irina sanctioned',
        identifier: 'DE77',
        list: 'Sandbox sanctions list',
        entryId: '',
        listVersion: null,
      },
      { nameKey: 'petr ivanov', identifier: 'DE78', list: '', entryId: '', listVersion: null },
      {
        nameKey: 'petr ivanov',
        identifier: 'DE78',
        list: 'OFAC SDN List',
        entryId: '100',
        listVersion: '2026-11-02#abcdef012345',
      },
    ]);
    // The keyed copy clears the sandbox hit again.
    expect((await submit(s.ctx, s.owner, cp)).sanctions_hit).toBe(false);
  });
});
