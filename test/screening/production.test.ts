/** A production deployment without a screening adapter answers 503 on every screening write and stores nothing. */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screeningWallets, walletOwnershipRequests } from '../../src/db/schema/index';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { api } from './fixtures';

let prod: TestContext;
let c: TestCaller;

beforeAll(async () => {
  prod = await createTestApp({ env: { ...PRODUCTION_ENV } });
  c = await createTestClient(prod, { productionAccess: true });
}, 120_000);
afterAll(() => prod?.close());

describe('production without a screening adapter', () => {
  it('answers 503 for screenings and ownership requests and stores nothing; simulate is 404', async () => {
    const call = api(prod);
    const res = await call('POST', '/screening/wallet', c.headers, {
      chain: 'ethereum',
      address: `0x${'a'.repeat(40)}`,
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Screening provider is not configured' });
    const own = await call('POST', '/screening/wallet-ownership/requests', c.headers, {
      chain: 'ethereum',
      address: `0x${'a'.repeat(40)}`,
      user_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(own.statusCode).toBe(503);
    const [w] = await prod.db
      .select({ n: count() })
      .from(screeningWallets)
      .where(eq(screeningWallets.clientId, c.clientId));
    const [o] = await prod.db
      .select({ n: count() })
      .from(walletOwnershipRequests)
      .where(eq(walletOwnershipRequests.clientId, c.clientId));
    expect([w!.n, o!.n]).toEqual([0, 0]);
    const sim = await call(
      'POST',
      '/sandbox/screening/wallet/00000000-0000-4000-8000-000000000000/simulate',
      c.headers,
      {
        risk_level: 'low',
      },
    );
    expect(sim.statusCode).toBe(404);
  });
});
