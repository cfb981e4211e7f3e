/**
 * A production deployment without a screening adapter: sanctions name screening and the
 * counterparty wallet risk go through the screening port, so a submission that needs either answers
 * 503 and stores nothing; one that needs neither is decided by our own rules engine.
 */
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { monitoredTransactions, screeningWallets } from '../../src/db/schema/index';
import { PRODUCTION_ENV } from '../helpers/app';
import { clientApp } from '../helpers/suites';
import { api, putPolicy, rule, txBody } from './fixtures';

const s = clientApp({ app: { env: { ...PRODUCTION_ENV } }, client: { productionAccess: true } });

const stored = async () => {
  const [t] = await s.ctx.db
    .select({ n: count() })
    .from(monitoredTransactions)
    .where(eq(monitoredTransactions.clientId, s.owner.clientId));
  const [w] = await s.ctx.db
    .select({ n: count() })
    .from(screeningWallets)
    .where(eq(screeningWallets.clientId, s.owner.clientId));
  return [t!.n, w!.n];
};

describe('production without a screening adapter', () => {
  it('answers 503 for name and wallet screening and stores nothing; the policy test too', async () => {
    const call = api(s.ctx);
    const res = await call('POST', '/monitoring/transactions', s.owner, txBody());
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Screening provider is not configured' });
    const { client_reference: _r, ...transaction } = txBody();
    const probe = await call('POST', '/monitoring/policy/test', s.owner, { transaction });
    expect(probe.statusCode).toBe(503);
    // Sanctions off but a rule needs the counterparty wallet's risk: still 503, nothing stored.
    await putPolicy(s.ctx, s.owner, {
      sanctions: { enabled: false, action: 'review' },
      rules: [rule('w', 'counterparty_wallet_risk', { min_risk_level: 'high' })],
    });
    const wallet = await call(
      'POST',
      '/monitoring/transactions',
      s.owner,
      txBody({ counterparty: { name: 'W', wallet: { chain: 'ethereum', address: `0x${'a'.repeat(40)}` } } }),
    );
    expect(wallet.statusCode).toBe(503);
    expect(await stored()).toEqual([0, 0]);
    // Neither needed: our rules engine decides.
    const plain = await call(
      'POST',
      '/monitoring/transactions',
      s.owner,
      txBody({ client_reference: 'sim_decline_1' }),
    );
    expect(plain.statusCode).toBe(201);
    expect(plain.json()).toMatchObject({ decision: 'APPROVED', sanctions_hit: false }); // no sandbox forcing
    expect(await stored()).toEqual([1, 0]);
  });
});
