/**
 * Invoice numbers come from a gapless per-year sequence assigned in the finalizing transaction:
 * 20 finalizations at once (concurrent on PostgreSQL; PGlite serializes transactions) get exactly
 * 1..20, and a rolled-back finalization gives its number back (a SEQUENCE would leave a gap).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextInvoiceNumber } from '../../src/modules/billing/billing.repo';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { testEngine } from '../helpers/db';
import { staffHeaders } from '../org/fixtures';
import { api, createDraft } from './fixtures';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_BILLING_INVOICE_PREFIX: 'GAP' } });
});
afterAll(() => ctx.close());

describe('gapless invoice numbers', () => {
  it(`gives 20 concurrent finalizations the numbers 1..20 with no gap or duplicate (${testEngine()})`, async () => {
    const staff = (await staffHeaders(ctx)).headers;
    const clientsA = await createTestClient(ctx);
    const clientsB = await createTestClient(ctx);
    const drafts = [];
    for (let i = 0; i < 20; i++)
      drafts.push((await createDraft(ctx, staff, i % 2 ? clientsA.clientId : clientsB.clientId)).invoice_id);
    const call = api(ctx);
    const results = await Promise.all(
      drafts.map((id) => call('POST', `/admin/billing/invoices/${id}/finalize`, staff)),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const numbers = results.map((r) => r.json().number as string).sort();
    expect(numbers).toEqual(
      Array.from({ length: 20 }, (_, i) => `GAP-2026-${String(i + 1).padStart(6, '0')}`),
    );
    // A second finalization of the same drafts takes no number.
    const again = await Promise.all(
      drafts.slice(0, 5).map((id) => call('POST', `/admin/billing/invoices/${id}/finalize`, staff)),
    );
    expect(again.map((r) => r.statusCode)).toEqual(Array(5).fill(400));
  });

  it('gives the number back when the finalizing transaction rolls back', async () => {
    await expect(
      ctx.db.transaction(async (tx) => {
        expect(await nextInvoiceNumber(tx, 'GAP', 2026)).toBe(21);
        throw new Error('rendering failed');
      }),
    ).rejects.toThrow('rendering failed');
    const n = await ctx.db.transaction((tx) => nextInvoiceNumber(tx, 'GAP', 2026));
    expect(n).toBe(21);
    // Another year starts at 1.
    expect(await ctx.db.transaction((tx) => nextInvoiceNumber(tx, 'GAP', 2027))).toBe(1);
  });
});
