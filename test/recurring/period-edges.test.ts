/**
 * Mandate limit accounting in the database (NUMERIC sums under the definition's lock, never floats) at
 * the period edges of every `period` in both alignments, through POST …/runs on the manual clock:
 * month ends (31st -> a 30-day month, Feb 28 and Feb 29), year edges, the steps of consent periods
 * counted from valid_from, and valid_to (no charge at or after it, before the expiry sweep too).
 *
 * Each case: a mandate of 10.00 per payment and 10.00 per period, authorized at `anchor` (valid_from
 * for consent alignment). 10.00 is charged at `from` (the start of a window); 0.01 more is refused
 * 1 ms before `edge`, and the full 10.00 is available again at `edge`. `notEdges` are instants
 * inside the same window (no reset there).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecurringMessages } from '../../src/modules/recurring/recurring.messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { createPaymentWorld, newKey, type PaymentWorld } from '../payments/fixtures';
import { api, createActive, drainRecurring, getRecurring, runsOf, settleBank } from './fixtures';

let ctx: TestContext;
let w: PaymentWorld;

beforeAll(async () => {
  // The big charges below are above the default SVC_PAYMENT_MAX_AMOUNT (1000000.00).
  ctx = await createTestApp({ env: { SVC_PAYMENT_MAX_AMOUNT: '100000000.00' } });
  w = await createPaymentWorld(ctx);
});
afterAll(async () => {
  await ctx?.close();
});

/** Moves the manual clock (either way: each case has its own mandate) and renews the caller's token. */
async function at(iso: string | number) {
  ctx.clock.set(new Date(iso));
  w.caller = await createTestClient(ctx, { clientId: w.caller.clientId });
}

async function mandate(
  period: string,
  alignment: string,
  limits: { perPayment?: string; periodic?: string; validTo?: string } = {},
) {
  const d = await createActive(ctx, w, {
    schedule: undefined,
    amount: undefined,
    mandate: {
      max_amount_per_payment: limits.perPayment ?? '10.00',
      periodic_limit: { amount: limits.periodic ?? '10.00', period, alignment },
      ...(limits.validTo ? { valid_to: limits.validTo } : {}),
    },
  });
  return d.definition_id;
}

async function charge(id: string, amount: string): Promise<number> {
  const res = await api(
    ctx,
    w,
    'POST',
    `/recurring-payments/${id}/runs`,
    { amount },
    { 'x-idempotency-key': newKey() },
  );
  if (res.statusCode === 400) expect(res.json()).toEqual({ detail: RecurringMessages.exceedsLimits });
  return res.statusCode;
}

interface EdgeCase {
  period: string;
  alignment: 'calendar' | 'consent';
  /** Authorization time (valid_from); defaults to `from`. */
  anchor?: string;
  from: string;
  edge: string;
  notEdges?: string[];
}

const CASES: Record<string, EdgeCase> = {
  'calendar day: UTC midnight': {
    period: 'day',
    alignment: 'calendar',
    from: '2026-03-01T00:00:00Z',
    edge: '2026-03-02T00:00:00Z',
    notEdges: ['2026-03-01T23:59:59Z'],
  },
  'calendar day: year edge': {
    period: 'day',
    alignment: 'calendar',
    from: '2026-12-31T00:00:00Z',
    edge: '2027-01-01T00:00:00Z',
  },
  'calendar week: Monday, not the new year': {
    period: 'week',
    alignment: 'calendar',
    from: '2026-12-28T00:00:00Z',
    edge: '2027-01-04T00:00:00Z',
    notEdges: ['2027-01-01T00:00:00Z', '2027-01-03T23:00:00Z'],
  },
  'calendar fortnight: pairs of ISO weeks': {
    period: 'fortnight',
    alignment: 'calendar',
    from: '2026-03-02T00:00:00Z',
    edge: '2026-03-16T00:00:00Z',
    notEdges: ['2026-03-09T00:00:00Z'],
  },
  'calendar fortnight: across the year': {
    period: 'fortnight',
    alignment: 'calendar',
    from: '2026-12-21T00:00:00Z',
    edge: '2027-01-04T00:00:00Z',
    notEdges: ['2026-12-28T00:00:00Z', '2027-01-01T00:00:00Z'],
  },
  'calendar month: February 28': {
    period: 'month',
    alignment: 'calendar',
    from: '2026-02-01T00:00:00Z',
    edge: '2026-03-01T00:00:00Z',
    notEdges: ['2026-02-28T12:00:00Z'],
  },
  'calendar month: February 29 (leap year)': {
    period: 'month',
    alignment: 'calendar',
    from: '2028-02-01T00:00:00Z',
    edge: '2028-03-01T00:00:00Z',
    notEdges: ['2028-02-29T00:00:00Z'],
  },
  'calendar month: a 30-day month': {
    period: 'month',
    alignment: 'calendar',
    from: '2026-04-01T00:00:00Z',
    edge: '2026-05-01T00:00:00Z',
    notEdges: ['2026-04-30T23:00:00Z'],
  },
  'calendar month: year edge': {
    period: 'month',
    alignment: 'calendar',
    from: '2026-12-01T00:00:00Z',
    edge: '2027-01-01T00:00:00Z',
    notEdges: ['2026-12-31T00:00:00Z'],
  },
  'calendar half_year: July 1': {
    period: 'half_year',
    alignment: 'calendar',
    from: '2026-01-01T00:00:00Z',
    edge: '2026-07-01T00:00:00Z',
    notEdges: ['2026-04-01T00:00:00Z', '2026-06-30T00:00:00Z'],
  },
  'calendar half_year: year edge': {
    period: 'half_year',
    alignment: 'calendar',
    from: '2026-07-01T00:00:00Z',
    edge: '2027-01-01T00:00:00Z',
    notEdges: ['2026-12-31T00:00:00Z'],
  },
  'calendar year: January 1': {
    period: 'year',
    alignment: 'calendar',
    from: '2026-01-01T00:00:00Z',
    edge: '2027-01-01T00:00:00Z',
    notEdges: ['2026-07-01T00:00:00Z', '2026-12-31T12:00:00Z'],
  },
  'calendar year: a mandate authorized mid-year': {
    period: 'year',
    alignment: 'calendar',
    anchor: '2026-09-30T17:00:00Z',
    from: '2026-09-30T17:00:00Z',
    edge: '2027-01-01T00:00:00Z',
  },
  'consent day: 24 h from valid_from': {
    period: 'day',
    alignment: 'consent',
    from: '2026-03-10T15:30:00Z',
    edge: '2026-03-11T15:30:00Z',
    notEdges: ['2026-03-11T00:00:00Z'],
  },
  'consent week: 7 days from valid_from': {
    period: 'week',
    alignment: 'consent',
    from: '2026-03-10T15:30:00Z',
    edge: '2026-03-17T15:30:00Z',
    notEdges: ['2026-03-16T00:00:00Z'],
  },
  'consent fortnight: across the year': {
    period: 'fortnight',
    alignment: 'consent',
    from: '2026-12-25T08:00:00Z',
    edge: '2027-01-08T08:00:00Z',
    notEdges: ['2027-01-01T00:00:00Z', '2027-01-04T00:00:00Z'],
  },
  'consent month: 31st -> February 28': {
    period: 'month',
    alignment: 'consent',
    from: '2026-01-31T12:00:00Z',
    edge: '2026-02-28T12:00:00Z',
    notEdges: ['2026-02-01T00:00:00Z'],
  },
  'consent month: the third window starts on the 31st again, not the 28th': {
    period: 'month',
    alignment: 'consent',
    anchor: '2026-01-31T12:00:00Z',
    from: '2026-02-28T12:00:00Z',
    edge: '2026-03-31T12:00:00Z',
    notEdges: ['2026-03-01T00:00:00Z', '2026-03-28T12:00:00Z'],
  },
  'consent month: 31st -> a 30-day month': {
    period: 'month',
    alignment: 'consent',
    from: '2026-03-31T12:00:00Z',
    edge: '2026-04-30T12:00:00Z',
    notEdges: ['2026-04-01T00:00:00Z'],
  },
  'consent month: 31st -> February 29': {
    period: 'month',
    alignment: 'consent',
    from: '2028-01-31T12:00:00Z',
    edge: '2028-02-29T12:00:00Z',
    notEdges: ['2028-02-28T12:00:00Z'],
  },
  'consent month: year edge': {
    period: 'month',
    alignment: 'consent',
    from: '2026-12-15T06:00:00Z',
    edge: '2027-01-15T06:00:00Z',
    notEdges: ['2027-01-01T00:00:00Z'],
  },
  'consent half_year: August 31 -> February 28, across the year': {
    period: 'half_year',
    alignment: 'consent',
    from: '2026-08-31T09:00:00Z',
    edge: '2027-02-28T09:00:00Z',
    notEdges: ['2026-12-31T23:00:00Z', '2027-01-01T00:00:00Z'],
  },
  'consent year: February 29 -> February 28': {
    period: 'year',
    alignment: 'consent',
    from: '2028-02-29T09:00:00Z',
    edge: '2029-02-28T09:00:00Z',
    notEdges: ['2029-01-01T00:00:00Z'],
  },
};

describe('limit windows at period edges (every period, both alignments)', () => {
  for (const [name, c] of Object.entries(CASES))
    it(name, async () => {
      await at(c.anchor ?? c.from);
      const id = await mandate(c.period, c.alignment);
      await at(c.from);
      expect(await charge(id, '10.00')).toBe(202);
      for (const inside of c.notEdges ?? []) {
        await at(inside);
        expect(await charge(id, '0.01'), inside).toBe(400);
      }
      const edge = new Date(c.edge).getTime();
      await at(edge - 1);
      expect(await charge(id, '0.01')).toBe(400);
      await at(edge);
      expect(await charge(id, '10.00')).toBe(202);
      expect(await charge(id, '0.01')).toBe(400);
    });
});

describe('decimal sums and valid_to', () => {
  it('sums NUMERIC amounts exactly: 0.10 + 0.20 fits a 0.30 limit, 0.01 more does not', async () => {
    await at('2026-05-04T10:00:00Z');
    const id = await mandate('week', 'calendar', { perPayment: '0.30', periodic: '0.30' });
    expect(await charge(id, '0.10')).toBe(202);
    expect(await charge(id, '0.20')).toBe(202);
    expect(await charge(id, '0.01')).toBe(400);
    const big = await mandate('year', 'consent', { perPayment: '9999999.99', periodic: '12345678.91' });
    expect(await charge(big, '9999999.99')).toBe(202);
    expect(await charge(big, '2345678.93')).toBe(400);
    expect(await charge(big, '2345678.92')).toBe(202);
    expect(await charge(big, '0.01')).toBe(400);
  });

  it('valid_to: a charge 1 ms before it is accepted; at it, runs and retries are refused before the sweep expires the mandate', async () => {
    await at('2026-06-01T08:00:00Z');
    const validTo = '2026-06-03T12:00:00.000Z';
    const id = await mandate('day', 'consent', { periodic: '100.00', validTo });
    expect((await getRecurring(ctx, w, id)).mandate).toMatchObject({ valid_to: validTo });
    expect(await charge(id, '9.52')).toBe(202); // rejected at the bank: a failed run to retry
    await settleBank(ctx, w);
    const [failed] = await runsOf(ctx, w, id);
    expect(failed!.status).toBe('failed');
    await at(new Date(validTo).getTime() - 1);
    expect(await charge(id, '10.00')).toBe(202);
    await at(validTo);
    const late = await api(
      ctx,
      w,
      'POST',
      `/recurring-payments/${id}/runs`,
      { amount: '1.00' },
      {
        'x-idempotency-key': newKey(),
      },
    );
    expect(late.statusCode).toBe(400);
    expect(late.json()).toEqual({ detail: RecurringMessages.mandateNotAuthorized });
    const retry = await api(ctx, w, 'POST', `/recurring-payments/${id}/retry`, { run_id: failed!.run_id });
    expect(retry.json()).toEqual({ detail: RecurringMessages.mandateNotAuthorized });
    expect((await getRecurring(ctx, w, id)).status).toBe('active');
    await drainRecurring(ctx);
    expect(await getRecurring(ctx, w, id)).toMatchObject({
      status: 'expired',
      status_reason: 'mandate_valid_to_passed',
    });
  });
});
