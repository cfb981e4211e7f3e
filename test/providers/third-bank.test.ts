/**
 * Adding a provider is its folder plus one list entry: a fake third bank ("Acme Bank",
 * test/providers/fakebank), handed to the app as one definition, takes a payment end to end through
 * the public API: payment link, hosted checkout bank choice, Acme's own signed notification on the
 * generic route, the final status, and the webhook event.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { events } from '../../src/db/schema/index';
import { createTestApp, type TestContext } from '../helpers/app';
import { createPaylink, createPaymentWorld, type PaymentWorld, pickBank } from '../payments/fixtures';
import { ACME_SIGNATURE_HEADER, AcmeBank, acmeBankProvider, acmeSign } from './fakebank/index';

const SECRET = 'acme-notification-secret';
let ctx: TestContext;
let w: PaymentWorld;
beforeAll(async () => {
  ctx = await createTestApp({
    env: { SVC_BANK_PROVIDER: 'acmebank', SVC_ACME_SECRET: SECRET },
    providerDefinitions: [acmeBankProvider],
  });
  w = await createPaymentWorld(ctx);
});
afterAll(() => ctx?.close());

const notify = (url: string, body: object, secret = SECRET) => {
  const raw = JSON.stringify(body);
  return ctx.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', [ACME_SIGNATURE_HEADER]: acmeSign(secret, raw) },
    payload: raw,
  });
};

const getTx = async (id: string) =>
  (await ctx.app.inject({ url: `/api/v1/transactions/${id}`, headers: w.caller.headers })).json();

async function statusEvents(id: string) {
  const rows = await ctx.db
    .select()
    .from(events)
    .where(and(eq(events.type, 'payment.status_changed'), sql`${events.data}->>'transaction_id' = ${id}`))
    .orderBy(events.createdAt, events.id);
  return rows.map((e) => {
    const d = e.data as Record<string, unknown>;
    return [d.previous_payment_status, d.current_payment_status];
  });
}

describe('a third bank provider, added as one definition', () => {
  it('is chosen by its name through the usual setting, its settings read on the shared reader', () => {
    expect(ctx.config.bankProvider).toBe('acmebank');
    expect(ctx.deps.providers.bank).toBeInstanceOf(AcmeBank);
    expect(() => loadConfig({ SVC_BANK_PROVIDER: 'acmebank' }, { providers: [acmeBankProvider] })).toThrow(
      /SVC_ACME_SECRET is required when SVC_BANK_PROVIDER=acmebank/,
    );
    // Without the definition the name is unknown.
    expect(() => loadConfig({ SVC_BANK_PROVIDER: 'acmebank' })).toThrow(
      /SVC_BANK_PROVIDER must be one of simulator, tokenio, none/,
    );
  });

  it('takes a payment end to end: link, checkout, its notification on the generic route, success, webhook event', async () => {
    const t = await createPaylink(ctx, w);
    expect(t.status).toBe('pending');
    const page = await ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Acme Retail Bank');

    const authorizationUrl = await pickBank(ctx, t.checkout_url, 'acme-retail');
    expect(authorizationUrl).toMatch(/^https:\/\/bank\.acme\.example\/authorize\/acmepay_/);
    expect(await getTx(t.transaction_id)).toMatchObject({ status: 'processing' });

    const bank = ctx.deps.providers.bank as AcmeBank;
    const session = [...bank.sessions.values()].find(
      (s) => s.paymentId && authorizationUrl.endsWith(s.paymentId),
    )!;
    const body = {
      id: 'evt-acme-1',
      reference: session.refId,
      payment_id: session.paymentId,
      state: 'completed',
      at: ctx.clock.now().toISOString(),
    };
    // A forged notification is refused before anything is read.
    const forged = await notify('/api/v1/providers/bank/acmebank/notifications', body, 'wrong-secret');
    expect(forged.statusCode).toBe(401);
    expect((await getTx(t.transaction_id)).status).toBe('processing');

    const res = await notify('/api/v1/providers/bank/acmebank/notifications', body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true, applied: true });
    expect(await getTx(t.transaction_id)).toMatchObject({ status: 'success', provider_status: 'completed' });
    expect(await statusEvents(t.transaction_id)).toEqual([
      ['pending', 'processing'],
      ['processing', 'success'],
    ]);

    // The kind's public URL serves the configured bank too; a replay changes nothing.
    const replay = await notify('/api/v1/providers/bank/notifications', body);
    expect(replay.statusCode).toBe(200);
    expect(await getTx(t.transaction_id)).toMatchObject({ status: 'success' });
    expect(await statusEvents(t.transaction_id)).toHaveLength(2);
  });
});
