/**
 * A currency the payment network cannot settle is refused when the link is created (422 at
 * `currency`, saying why), and the checkout offers only the banks that take the payment's currency:
 * production with Token.io (the stand-in's banks: Modelo, Greenleaf, Harbour by Faster Payments in
 * GB; Rheinbank and Baltic Savings by SEPA Instant).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opcos } from '../../../src/db/schema/index';
import type { TestContext } from '../../helpers/app';
import {
  createPaylink,
  createPaymentWorld,
  newKey,
  type PaymentWorld,
  paylinkBody,
  pickBank,
  tokenOf,
} from '../../payments/fixtures';
import { type RunningStandin, startTokenioStandin } from '../../standins/tokenio/server';
import { startTokenioApp } from './fixtures';

let standin: RunningStandin;
let ctx: TestContext;
let w: PaymentWorld;

beforeAll(async () => {
  standin = await startTokenioStandin();
  ctx = await startTokenioApp(standin, {});
  w = await createPaymentWorld(ctx, { productionAccess: true });
  const s = standin.control.store.createSubTpp({
    name: 'Acme Payments',
    domain: 'acme.example.com',
    merchant: { iban: 'GB82WEST12345698765432' },
  });
  standin.control.decideSubTpp(s.id, 'ACTIVATED');
  await ctx.db.update(opcos).set({ subTppId: s.id }).where(eq(opcos.id, w.opcoId));
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  await standin?.close();
});

const post = (extra: Record<string, unknown>) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...w.caller.headers, 'x-idempotency-key': newKey() },
    payload: paylinkBody(w, extra),
  });

const banksOn = async (checkoutUrl: string) => {
  const page = await ctx.app.inject({ url: new URL(checkoutUrl).pathname });
  expect(page.statusCode).toBe(200);
  return [...page.body.matchAll(/name="bank_id" id="bank-([^"]+)"/g)].map((m) => m[1]);
};

describe('currencies the network can settle', () => {
  it('a currency no bank takes is 422 at currency, naming the currencies the banks take', async () => {
    const r = await post({ currency: 'USD' });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toEqual([
      {
        loc: ['body', 'currency'],
        msg: 'No bank on the payment network takes USD payments (its banks take EUR, GBP)',
        type: 'value_error',
      },
    ]);
  });

  it('GBP to an opco without a UK account is 422 at currency, saying so', async () => {
    await ctx.db
      .update(opcos)
      .set({ settlementIban: 'DE89370400440532013000' })
      .where(eq(opcos.id, w.opcoId));
    try {
      const r = await post({ currency: 'GBP' });
      expect(r.statusCode).toBe(422);
      expect(r.json().detail).toEqual([
        {
          loc: ['body', 'currency'],
          msg: 'GBP payments need the opco to settle to a UK account (a GB IBAN)',
          type: 'value_error',
        },
      ]);
      // EUR to the same opco goes (SEPA Instant to its IBAN).
      expect((await post({ currency: 'EUR' })).statusCode).toBe(201);
    } finally {
      await ctx.db
        .update(opcos)
        .set({ settlementIban: 'GB82WEST12345698765432' })
        .where(eq(opcos.id, w.opcoId));
    }
  });

  it('the checkout offers only the banks that take the currency; another bank is not accepted', async () => {
    const gbp = await createPaylink(ctx, w, { currency: 'GBP' });
    expect(await banksOn(gbp.checkout_url)).toEqual(['ob-modelo', 'ob-greenleaf', 'ob-harbour']);
    const eur = await createPaylink(ctx, w, { currency: 'EUR' });
    // Banca Laguna by SEPA (no SEPA Instant); not Pohjola (requires the payer's account, which the
    // checkout does not collect) nor Wisla (Elixir only).
    expect(await banksOn(eur.checkout_url)).toEqual(['ngp-rheinbank', 'ngp-baltic', 'ngp-laguna']);
    const wrong = await ctx.app.inject({
      method: 'POST',
      url: `/checkout/${tokenOf(gbp.checkout_url)}/bank`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'bank_id=ngp-rheinbank',
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('Choose your bank to continue.');
    expect(standin.control.store.payments.size).toBe(0);
    expect(await pickBank(ctx, gbp.checkout_url, 'ob-modelo')).toContain(`${standin.url}/bank/`);
  });
});
