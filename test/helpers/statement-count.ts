/**
 * Records every statement the test process sends to the database, on either engine: node-postgres
 * (each Client.query, BEGIN and COMMIT included) or PGlite (query, exec, and a transaction as its
 * BEGIN, its statements and its COMMIT). For asserting how many statements a request costs.
 */
import { PGlite, type Transaction } from '@electric-sql/pglite';
import pg from 'pg';

export interface StatementLog {
  readonly texts: string[];
  stop(): void;
}

const textOf = (q: unknown): string =>
  typeof q === 'string' ? q : ((q as { text?: string } | null)?.text ?? String(q));

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
    texts.push(textOf(args[0]));
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
