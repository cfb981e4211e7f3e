/** Travel-rule test helpers: API calls, bodies, and the worker pass. */
import { runDueTravelRuleTimers } from '../../src/modules/travel-rule/travel-rule.jobs';
import type { TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';

export { SANDBOX_VASP_IDS } from '../../src/providers/travel-rule/simulator';

export function api(ctx: TestContext) {
  return (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
    ctx.app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

let seq = 0;
/** A lowercase EVM address ending in `suffix`, unique per call. */
export function evm(suffix: string): string {
  seq++;
  const body = `${seq.toString(16).padStart(8, '0')}${'e'.repeat(40)}`.slice(0, 40 - suffix.length);
  return `0x${body}${suffix}`;
}

export const ORIGINATOR = {
  type: 'natural',
  first_name: 'Alice',
  last_name: 'Sender',
  account_number: `0x${'a'.repeat(40)}`,
  address: { street: '1 Main St', city: 'Berlin', postal_code: '10115', country: 'DE' },
};

export const BENEFICIARY = {
  type: 'natural',
  first_name: 'Bob',
  last_name: 'Receiver',
  account_number: 'ext-1',
};

let ref = 0;
export function transferBody(address: string, extra: Record<string, unknown> = {}) {
  ref++;
  return {
    asset: 'ETH',
    chain: 'ethereum',
    amount: '1.5',
    fiat_value: { amount: '2500.00', currency: 'EUR' },
    originator: ORIGINATOR,
    beneficiary: { ...BENEFICIARY, account_number: address },
    counterparty_wallet: { address },
    client_reference: `tr-${ref}-${Math.random().toString(36).slice(2, 8)}`,
    ...extra,
  };
}

export const runDueTimers = (ctx: TestContext) => runDueTravelRuleTimers(ctx.deps);

/** A new client with the travel-rule settings sending needs (an originator VASP with its LEI, a threshold). */
export async function travelRuleClient(ctx: TestContext): Promise<TestCaller> {
  const owner = await createTestClient(ctx);
  const res = await api(ctx)('PUT', '/travel-rule/settings', owner.headers, {
    originator_vasp: { name: 'Acme VASP', lei: '5493001KJTIIGC8Y1R12', country: 'DE' },
    threshold: { amount: '500.00', currency: 'EUR' },
  });
  if (res.statusCode !== 200) throw new Error(`travel-rule settings: ${res.statusCode} ${res.body}`);
  return owner;
}
