/**
 * Named prepared statements and schema changes on PostgreSQL (docs/guides/scaling.md): the hot
 * statements name their columns, so an additive migration leaves their result type alone; a
 * statement whose table changed under it anyway (`select *`, a dropped column) fails once with
 * "cached plan must not change result type", its connection is dropped and the call runs unnamed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPostgres } from '../../src/db/client';
import { columnList } from '../../src/db/hot';
import { transactions } from '../../src/db/schema/index';
import { createScratchPostgresDatabase, testEngine } from '../helpers/db';

const onPostgres = testEngine() === 'postgres';

describe.skipIf(!onPostgres)('named statements across a migration', () => {
  let database: Database;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const scratch = await createScratchPostgresDatabase('svc_prep');
    drop = scratch.drop;
    database = await openPostgres(scratch.url, { poolSize: 1 });
    await database.db.execute('create table probe (id int primary key, note text)');
    await database.db.execute("insert into probe values (1, 'one')");
  });

  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('a statement selecting * survives a column added under it (run unnamed once)', async () => {
    expect(await database.query('probe_all', 'select * from probe', [])).toEqual([{ id: 1, note: 'one' }]);
    await database.db.execute('alter table probe add column extra text');
    expect(await database.query('probe_all', 'select * from probe', [])).toEqual([
      { id: 1, note: 'one', extra: null },
    ]);
    // The next call prepares it again on a fresh connection.
    expect(await database.query('probe_all', 'select * from probe', [])).toHaveLength(1);
  });

  it('a statement with named columns keeps its plan', async () => {
    expect(await database.query('probe_named', 'select id, note from probe', [])).toHaveLength(1);
    await database.db.execute('alter table probe add column more text');
    expect(await database.query('probe_named', 'select id, note from probe', [])).toEqual([
      { id: 1, note: 'one' },
    ]);
  });

  it('columnList names every column of a table', () => {
    const list = columnList(transactions, 't').split(', ');
    expect(list).toContain('t.id');
    expect(list).toContain('t.expires_at');
    expect(list.every((c) => c.startsWith('t.'))).toBe(true);
  });
});
