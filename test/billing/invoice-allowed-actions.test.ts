/** An invoice's allowed_actions (the sandbox simulators) match what the API accepts, per state and per role. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type InvoiceStatus, invoices } from '../../src/db/schema/index';
import { invoiceActions } from '../../src/modules/billing/billing.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestClient } from '../helpers/clients';
import { clientApp } from '../helpers/suites';
import { api } from './fixtures';

const s = clientApp();

type Action = (typeof invoiceActions.names)[number];
const call = (method: string, url: string, body?: unknown, caller = s.owner) =>
  api(s.ctx)(method, url, caller.headers, body);

async function sample() {
  const r = await call('POST', '/sandbox/billing/invoices', {});
  expect(r.statusCode, r.body).toBe(201);
  return r.json().invoice_id as string;
}
const simulated = (action: 'pay' | 'overdue') => async () => {
  const id = await sample();
  expect((await call('POST', `/sandbox/billing/invoices/${id}/simulate`, { action })).statusCode).toBe(200);
  return id;
};
/** Statuses only staff reach (void, uncollectible): set on a sample. */
const inStatus = (status: InvoiceStatus) => async () => {
  const id = await sample();
  await s.ctx.db.update(invoices).set({ status }).where(eq(invoices.id, id));
  return id;
};

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  open: { expected: ['simulate_payment', 'simulate_overdue'], make: sample },
  overdue: { expected: ['simulate_payment'], make: simulated('overdue') },
  uncollectible: { expected: ['simulate_payment'], make: inStatus('uncollectible') },
  paid: { expected: [], make: simulated('pay') },
  void: { expected: [], make: inStatus('void') },
};

const perform = (action: Action, id: string) =>
  call('POST', `/sandbox/billing/invoices/${id}/simulate`, {
    action: action === 'simulate_payment' ? 'pay' : 'overdue',
  });

describe('invoice allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: invoiceActions.names,
        expected,
        make,
        actionsOf: async (id) => (await call('GET', `/billing/invoices/${id}`)).json().allowed_actions,
        perform,
      }));

  it('a token without sandbox.simulate sees none; the list carries them per row', async () => {
    const id = await sample();
    const readOnly = await createTestClient(s.ctx, {
      clientId: s.owner.clientId,
      apiToken: true,
      permissions: ['billing.read'],
    });
    expect(
      (await call('GET', `/billing/invoices/${id}`, undefined, readOnly)).json().allowed_actions,
    ).toEqual([]);
    const list = (await call('GET', '/billing/invoices?page_size=100')).json().invoices as {
      status: InvoiceStatus;
      allowed_actions: string[];
    }[];
    expect(new Set(list.map((i) => i.status)).size).toBeGreaterThan(2);
    for (const i of list)
      expect(i.allowed_actions).toEqual(
        invoiceActions.of(i, { permissions: new Set(['sandbox.simulate']), sandbox: true }),
      );
  });
});
