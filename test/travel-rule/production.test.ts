/** Production without a travel-rule adapter: 503 on transfers and the directory, nothing stored; simulate is 404. */
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { travelRuleTransfers } from '../../src/db/schema/index';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { api, evm, transferBody } from './fixtures';

let prod: TestContext;
let c: TestCaller;

beforeAll(async () => {
  prod = await createTestApp({ env: { ...PRODUCTION_ENV } });
  c = await createTestClient(prod, { productionAccess: true });
}, 120_000);
afterAll(() => prod?.close());

describe('production without a travel-rule adapter', () => {
  it('is off by default (403), then 503 with nothing stored once switched on', async () => {
    const call = api(prod);
    const off = await call('POST', '/travel-rule/transfers', c.headers, transferBody(evm('abcd')));
    expect(off.statusCode).toBe(403);
    expect(off.json()).toEqual({ detail: 'Travel rule is disabled for this client' });
    await prod.db.execute(
      sql`update clients set features = coalesce(features, '{}'::jsonb) || '{"travel_rule": true}'::jsonb where id = ${c.clientId}::uuid`,
    );
    await call('PUT', '/travel-rule/settings', c.headers, {
      originator_vasp: { name: 'Acme', country: 'DE' },
    });
    const res = await call('POST', '/travel-rule/transfers', c.headers, transferBody(evm('abcd')));
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Travel-rule network provider is not configured' });
    const [n] = await prod.db
      .select({ n: count() })
      .from(travelRuleTransfers)
      .where(eq(travelRuleTransfers.clientId, c.clientId));
    expect(n!.n).toBe(0);
    const v = await call('GET', '/travel-rule/vasps', c.headers);
    expect(v.statusCode).toBe(503);
    const sim = await call(
      'POST',
      '/sandbox/travel-rule/transfers/00000000-0000-4000-8000-000000000000/simulate',
      c.headers,
      { action: 'accept' },
    );
    expect(sim.statusCode).toBe(404);
    const inbound = await call('POST', '/sandbox/travel-rule/inbound', c.headers, {
      asset: 'ETH',
      chain: 'ethereum',
      amount: '1',
      fiat_value: { amount: '1.00', currency: 'EUR' },
      originator: { type: 'legal', legal_name: 'X', account_number: 'x', date_of_birth: '2000-01-01' },
      beneficiary: { type: 'legal', legal_name: 'Y', account_number: 'y' },
      beneficiary_address: evm('abcd'),
    });
    expect(inbound.statusCode).toBe(404);
  });
});
