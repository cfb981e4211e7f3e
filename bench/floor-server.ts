/**
 * Floor routes for `npm run bench` (after ../shared/perf-floor): bare Fastify routes on the same
 * database server as the service, started by the bench in the same run so the service's figures
 * can be given as ratios to them.
 *   GET  /jwt      hello world behind an HS256 JWT check (jose, a KeyObject made once)
 *   POST /insert   one INSERT per request (pg Pool of DATABASE_POOL_SIZE, default 10; or PGlite)
 *   POST /txn      one transaction: idempotency row + payment row + outbox row
 * Env: PORT, FLOOR_JWT_SECRET, DATABASE_URL (PostgreSQL) or FLOOR_PGLITE_DIR (PGlite).
 */
import { createSecretKey, randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import pg from 'pg';

type Query = (text: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

const DDL = `
drop table if exists floor_payments, floor_idem, floor_outbox;
create table floor_payments (id uuid primary key, amount numeric not null, status text not null, created_at timestamptz not null default now());
create table floor_idem (key text primary key, payment_id uuid not null, created_at timestamptz not null default now());
create table floor_outbox (id bigserial primary key, payload jsonb not null, status text not null default 'pending', next_attempt_at timestamptz not null default now());`;

async function openDb(): Promise<{
  query: Query;
  tx: <T>(fn: (q: Query) => Promise<T>) => Promise<T>;
}> {
  if (process.env.DATABASE_URL) {
    const pool = new pg.Pool({
      connectionString: process.env.DATABASE_URL,
      max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    });
    await pool.query(DDL);
    const query: Query = (text, params) => pool.query(text, params);
    return {
      query,
      tx: async (fn) => {
        const c = await pool.connect();
        try {
          await c.query('begin');
          const r = await fn((t, p) => c.query(t, p));
          await c.query('commit');
          return r;
        } catch (err) {
          await c.query('rollback');
          throw err;
        } finally {
          c.release();
        }
      },
    };
  }
  const db = await PGlite.create(process.env.FLOOR_PGLITE_DIR);
  await db.exec(DDL);
  return {
    query: (text, params) => db.query(text, params),
    tx: (fn) => db.transaction((t) => fn((text, params) => t.query(text, params))),
  };
}

const key = createSecretKey(Buffer.from(process.env.FLOOR_JWT_SECRET ?? 'x'.repeat(64)));
const db = await openDb();
const app = Fastify({ logger: false });

app.get('/jwt', async (req, reply) => {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  try {
    const { payload } = await jwtVerify(m?.[1] ?? '', key, { algorithms: ['HS256'] });
    return { hello: payload.sub };
  } catch {
    return reply.code(401).send({ detail: 'Could not validate credentials' });
  }
});

app.post('/insert', async (req, reply) => {
  const id = randomUUID();
  const { amount } = req.body as { amount: string };
  await db.query('insert into floor_payments (id, amount, status) values ($1, $2, $3)', [
    id,
    amount,
    'pending',
  ]);
  return reply.code(201).send({ id });
});

app.post('/txn', async (req, reply) => {
  const k = (req.headers['x-idempotency-key'] as string | undefined) ?? randomUUID();
  const id = randomUUID();
  const { amount } = req.body as { amount: string };
  const out = await db.tx(async (q) => {
    const ins = await q(
      'insert into floor_idem (key, payment_id) values ($1, $2) on conflict (key) do nothing returning payment_id',
      [k, id],
    );
    if (ins.rows.length === 0) {
      const r = await q('select payment_id from floor_idem where key = $1', [k]);
      return { id: r.rows[0]!.payment_id, replay: true };
    }
    await q('insert into floor_payments (id, amount, status) values ($1, $2, $3)', [id, amount, 'pending']);
    await q('insert into floor_outbox (payload) values ($1)', [
      JSON.stringify({ type: 'payment.created', id }),
    ]);
    return { id, replay: false };
  });
  return reply.code(out.replay ? 200 : 201).send(out);
});

app.get('/readyz', async () => ({ ok: true }));

await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
const stop = () => {
  app.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
