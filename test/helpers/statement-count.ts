/**
 * Records every statement the test process sends to the database, on either engine: node-postgres
 * (each Client.query, BEGIN and COMMIT included) or PGlite (query, exec, and a transaction as its
 * BEGIN, its statements and its COMMIT). For asserting how many statements a request costs.
 * On PGlite a hot statement (Database.query) runs as `EXECUTE hot_n(...)` of a statement PREPAREd
 * on its first use: it is recorded as its SQL, once, and the PREPARE is not counted (PostgreSQL's
 * named statements parse on first use within the same query call too).
 */
import { PGlite, type Transaction } from '@electric-sql/pglite';
import pg from 'pg';

export interface StatementLog {
  readonly texts: string[];
  stop(): void;
}

const prepared = new WeakMap<PGlite, Map<string, string>>();
const PREPARE = /^prepare (hot_\d+) as ([\s\S]*)$/;
const EXECUTE = /^execute (hot_\d+)\b/;

// Installed once, for good: every PREPARE of every instance is seen, also those before a recording.
const execOfPrototype = PGlite.prototype.exec;
PGlite.prototype.exec = function (this: PGlite, ...args: Parameters<PGlite['exec']>) {
  const m = PREPARE.exec(args[0]);
  if (m) {
    const names = prepared.get(this) ?? new Map<string, string>();
    prepared.set(this, names);
    names.set(m[1]!, m[2]!);
  }
  return execOfPrototype.apply(this, args);
};

const textOf = (q: unknown): string =>
  typeof q === 'string' ? q : ((q as { text?: string } | null)?.text ?? String(q));

/** A PGlite statement as recorded: an EXECUTE as the SQL it runs; null for a PREPARE. */
function liteTextOf(client: PGlite, q: unknown): string | null {
  const text = textOf(q);
  if (PREPARE.test(text)) return null;
  const m = EXECUTE.exec(text);
  return (m && prepared.get(client)?.get(m[1]!)) ?? text;
}

export function recordStatements(): StatementLog {
  const texts: string[] = [];
  const pgQuery = pg.Client.prototype.query;
  const lite = PGlite.prototype;
  const own = {
    query: Object.hasOwn(lite, 'query'),
    exec: Object.hasOwn(lite, 'exec'),
    transaction: Object.hasOwn(lite, 'transaction'),
  };
  const liteQuery = lite.query;
  const liteExec = lite.exec;
  const liteTransaction = lite.transaction;

  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    texts.push(textOf(args[0]));
    return (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pgQuery;
  lite.query = function (this: PGlite, ...args: Parameters<PGlite['query']>) {
    texts.push(textOf(args[0]));
    return liteQuery.apply(this, args);
  } as PGlite['query'];
  lite.exec = function (this: PGlite, ...args: Parameters<PGlite['exec']>) {
    const text = liteTextOf(this, args[0]);
    if (text !== null) texts.push(text);
    return liteExec.apply(this, args);
  };
  lite.transaction = function <T>(this: PGlite, fn: (tx: Transaction) => Promise<T>) {
    texts.push('BEGIN');
    return liteTransaction
      .call(this, (tx: Transaction) =>
        fn(
          new Proxy(tx, {
            get(target, prop, receiver) {
              const v = Reflect.get(target, prop, receiver);
              if ((prop === 'query' || prop === 'exec') && typeof v === 'function')
                return (...a: unknown[]) => {
                  texts.push(textOf(a[0]));
                  return (v as (...x: unknown[]) => unknown).apply(target, a);
                };
              return v;
            },
          }),
        ),
      )
      .finally(() => texts.push('COMMIT'));
  } as PGlite['transaction'];

  return {
    texts,
    stop() {
      pg.Client.prototype.query = pgQuery;
      for (const [k, orig] of [
        ['query', liteQuery],
        ['exec', liteExec],
        ['transaction', liteTransaction],
      ] as const) {
        if (own[k]) (lite as unknown as Record<string, unknown>)[k] = orig;
        else delete (lite as unknown as Record<string, unknown>)[k];
      }
    },
  };
}
