/** A production deployment without a screening adapter answers 503 on every screening write and stores nothing. */
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { screeningWallets, walletOwnershipRequests } from '../../src/db/schema/index';
import { PRODUCTION_ENV } from '../helpers/app';
import { clientApp } from '../helpers/suites';
import { api } from './fixtures';

const s = clientApp({ app: { env: { ...PRODUCTION_ENV } }, client: { productionAccess: true } });

describe('production without a screening adapter', () => {
  it('answers 503 for screenings and ownership requests and stores nothing; simulate is 404', async () => {
    const call = api(s.ctx);
    const res = await call('POST', '/screening/wallet', s.owner.headers, {
      chain: 'ethereum',
      address: `0x${'a'.repeat(40)}`,
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Screening provider is not configured' });
    const own = await call('POST', '/screening/wallet-ownership/requests', s.owner.headers, {
      chain: 'ethereum',
      address: `0x${'a'.repeat(40)}`,
      user_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(own.statusCode).toBe(503);
    const [w] = await s.ctx.db
      .select({ n: count() })
      .from(screeningWallets)
      .where(eq(screeningWallets.clientId, s.owner.clientId));
    const [o] = await s.ctx.db
      .select({ n: count() })
      .from(walletOwnershipRequests)
      .where(eq(walletOwnershipRequests.clientId, s.owner.clientId));
    expect([w!.n, o!.n]).toEqual([0, 0]);
    const sim = await call(
      'POST',
      '/sandbox/screening/wallet/00000000-0000-4000-8000-000000000000/simulate',
      s.owner.headers,
      {
        risk_level: 'low',
      },
    );
    expect(sim.statusCode).toBe(404);
  });
});
