/**
 * A production deployment without a screening adapter: sanctions name screening and the
 * counterparty wallet risk go through the screening port, so a submission that needs either answers
 * 503 and stores nothing; one that needs neither is decided by our own rules engine.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitoredTransactions, screeningWallets } from '../../src/db/schema/index';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { api, putPolicy, rule, txBody } from './fixtures';

let prod: TestContext;
let c: TestCaller;

beforeAll(async () => {
  prod = await createTestApp({ env: { ...PRODUCTION_ENV } });
  c = await createTestClient(prod, { productionAccess: true });
}, 120_000);
afterAll(() => prod?.close());

const stored = async () => {
  const [t] = await prod.db
    .select({ n: count() })
    .from(monitoredTransactions)
    .where(eq(monitoredTransactions.clientId, c.clientId));
  const [w] = await prod.db
    .select({ n: count() })
    .from(screeningWallets)
    .where(eq(screeningWallets.clientId, c.clientId));
  return [t!.n, w!.n];
};

describe('production without a screening adapter', () => {
  it('answers 503 for name and wallet screening and stores nothing; the policy test too', async () => {
    const call = api(prod);
    const res = await call('POST', '/monitoring/transactions', c, txBody());
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Screening provider is not configured' });
    const { client_reference: _r, ...transaction } = txBody();
    const probe = await call('POST', '/monitoring/policy/test', c, { transaction });
    expect(probe.statusCode).toBe(503);
    // Sanctions off but a rule needs the counterparty wallet's risk: still 503, nothing stored.
    await putPolicy(prod, c, {
      sanctions: { enabled: false, action: 'review' },
      rules: [rule('w', 'counterparty_wallet_risk', { min_risk_level: 'high' })],
    });
    const wallet = await call(
      'POST',
      '/monitoring/transactions',
      c,
      txBody({ counterparty: { name: 'W', wallet: { chain: 'ethereum', address: `0x${'a'.repeat(40)}` } } }),
    );
    expect(wallet.statusCode).toBe(503);
    expect(await stored()).toEqual([0, 0]);
    // Neither needed: our rules engine decides.
    const plain = await call(
      'POST',
      '/monitoring/transactions',
      c,
      txBody({ client_reference: 'sim_decline_1' }),
    );
    expect(plain.statusCode).toBe(201);
    expect(plain.json()).toMatchObject({ decision: 'APPROVED', sanctions_hit: false }); // no sandbox forcing
    expect(await stored()).toEqual([1, 0]);
  });
});
