/**
 * Database.query, the hot paths' statement runner: a named prepared statement on PostgreSQL, a
 * PREPAREd statement run with EXECUTE and literal arguments on PGlite (db/pglite-prepared.ts).
 * Whatever the engine, a parameter arrives exactly as bound: quotes, backslashes, SQL and unicode
 * are data, never syntax; values that cannot be literals still run (as a plain query); and a
 * statement PostgreSQL cannot prepare on its own still runs.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/client';
import { executeArguments } from '../../src/db/pglite-prepared';
import { createTestDatabase, testEngine } from '../helpers/db';

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute('create table hot_probe (id serial primary key, v text, n numeric, b boolean)');
});
afterAll(() => database?.close());

const HOSTILE = [
  "o'brien",
  "'); drop table hot_probe; --",
  "\\'; select 1; --",
  'back\\slash\\',
  "''''",
  '$1 $$ $tag$ ::uuid',
  "e'\\x41'",
  'line\nbreak\ttab\r',
  'ünïcødé 🚀 ‮',
  '',
];

const INSERT = 'insert into hot_probe (v, n, b) values ($1, $2::numeric, $3) returning v, n::text as n, b';

describe('Database.query', () => {
  it('stores and returns hostile strings exactly, in a statement run many times', async () => {
    const exec = vi.spyOn(PGlite.prototype, 'exec');
    for (const v of HOSTILE) {
      const [row] = await database.query<{ v: string; n: string; b: boolean }>('hot_probe_insert', INSERT, [
        v,
        '12.30',
        true,
      ]);
      expect(row).toEqual({ v, n: '12.30', b: true });
    }
    const texts = exec.mock.calls.map((c) => c[0]);
    exec.mockRestore();
    // On PGlite the literal path is the one exercised: prepared once, then EXECUTE every time.
    if (testEngine() === 'pglite') {
      expect(texts.filter((t) => /^prepare hot_\d+ as insert into hot_probe/.test(t))).toHaveLength(1);
      expect(texts.filter((t) => /^execute hot_\d+\(/.test(t))).toHaveLength(HOSTILE.length);
    }
    const rows = await database.query<{ v: string }>(
      'hot_probe_all',
      'select v from hot_probe where v = any($1::text[]) order by id',
      [HOSTILE],
    );
    expect(rows.map((r) => r.v)).toEqual(HOSTILE);
    const [count] = await database.query<{ n: number }>(
      'hot_probe_count',
      'select count(*)::int as n from hot_probe',
      [],
    );
    expect(count!.n).toBe(HOSTILE.length);
  });

  it('binds numbers, booleans, nulls and bigints with the prepared types', async () => {
    const [row] = await database.query<{ v: string | null; n: string; b: boolean }>(
      'hot_probe_insert',
      INSERT,
      [null, 42.5, false],
    );
    expect(row).toEqual({ v: null, n: '42.5', b: false });
    const [big] = await database.query<{ x: string }>('hot_probe_big', 'select ($1::bigint + 1)::text as x', [
      9007199254740993n,
    ]);
    expect(big!.x).toBe('9007199254740994');
  });

  it('runs a statement with a value that cannot be a literal, and one that cannot be prepared', async () => {
    // A NUL is refused by PostgreSQL's text type whichever way it is sent; it must not cut the statement short.
    await expect(database.query('hot_probe_insert', INSERT, ['a\0b', '1', true])).rejects.toThrow();
    const [count] = await database.query<{ n: number }>(
      'hot_probe_count',
      'select count(*)::int as n from hot_probe',
      [],
    );
    expect(count!.n).toBe(HOSTILE.length + 1);
    // A parameter whose type nothing determines: not preparable alone, fine once bound as text.
    const rows = await database.query<{ x: string }>('hot_probe_untyped', 'select $1 as x', ['plain']);
    expect(rows).toEqual([{ x: 'plain' }]);
  });
});

describe('executeArguments (PGlite EXECUTE literals)', () => {
  it('doubles quotes and nothing else; refuses NUL, non-finite numbers and objects', () => {
    expect(executeArguments(["it's", 'a\\b', 7, -0.5, true, false, null, undefined, 12n])).toBe(
      "'it''s', 'a\\b', '7', '-0.5', 't', 'f', null, null, '12'",
    );
    expect(executeArguments([])).toBe('');
    expect(executeArguments(['a\0b'])).toBeNull();
    expect(executeArguments([Number.NaN])).toBeNull();
    expect(executeArguments([Number.POSITIVE_INFINITY])).toBeNull();
    expect(executeArguments([new Date()])).toBeNull();
    expect(executeArguments([{ a: 1 }])).toBeNull();
    expect(executeArguments([['x']])).toBeNull();
  });
});
