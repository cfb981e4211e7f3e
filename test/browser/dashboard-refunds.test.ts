/**
 * Chromium against the real service: a paid payment's page offers Refund from its allowed_actions
 * with the refundable amount prefilled; a partial refund shows on the page and settles with the
 * sandbox simulation; the rest is refunded; the Refunds page lists them with filters. Screenshots go
 * to test-results/dashboard-shots (refunds-*.png).
 */
import { sql } from 'drizzle-orm';
import type { ConsoleMessage, Page } from 'playwright-core';
import { beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { loginOk, type Session } from '../helpers/auth-flow';
import { hasChromium } from '../helpers/browser';
import { expectAccessible, screenshots } from '../helpers/dashboard';
import { dashboardSuite } from '../helpers/dashboard-suite';
import { insertOpco, insertProject, insertUser, newKey, setClient } from '../payments/fixtures';

describe.skipIf(!hasChromium)('dashboard: refunds', () => {
  const s = dashboardSuite();
  let session: Session;
  let projectId: string;
  let userId: string;

  beforeAll(async () => {
    const { owner } = s;
    session = await loginOk(s.ctx, owner.email, owner.password);
    projectId = await insertProject(s.ctx, owner.clientId, await insertOpco(s.ctx, owner.clientId));
    userId = await insertUser(s.ctx, owner.clientId);
    await setClient(s.ctx, owner.clientId, { callbackUrl: 'https://shop.example.com/return' });
  }, 60_000);

  const paid = async (amount: string) => {
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/paylink',
      headers: { ...session.headers, 'x-idempotency-key': newKey() },
      payload: { amount, currency: 'EUR', project_id: projectId, user_id: userId },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().transaction_id as string;
    const sim = await s.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/sandbox/transactions/${id}/simulate`,
      headers: session.headers,
      payload: { outcome: 'success' },
    });
    expect(sim.json().status).toBe('success');
    return id;
  };

  const watch = (page: Page) => {
    const problems: string[] = [];
    page.on('console', (m: ConsoleMessage) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    return problems;
  };

  it('refunds a paid payment in part and then in full, and lists the refunds', async () => {
    const id = await paid('40.00');
    let problems: string[] = [];
    const { page } = await s.signedIn(`/payments/${id}`, /.*/, {
      prepare: (p) => {
        problems = watch(p);
      },
    });
    onTestFailed(() => console.log('problems:', problems));
    const section = page.getByRole('region', { name: 'Refunds' });
    await section.waitFor();
    const amount = section.getByLabel('Amount (EUR)');
    expect(await amount.inputValue()).toBe('40.00');

    // A partial refund whose cents keep it processing at the sandbox bank.
    await amount.fill('15.53');
    await section.getByLabel('Reason').fill('Returned item');
    await section.getByRole('button', { name: 'Refund', exact: true }).click();
    await section.getByTestId('refund-row').filter({ hasText: 'processing' }).waitFor();
    await section.getByText('Returned item').waitFor();
    await expect.poll(() => section.getByLabel('Amount (EUR)').inputValue()).toBe('24.47');
    await expectAccessible(page, 'payment page with a refund');
    await screenshots(page, 'refunds-payment-processing');

    await section.getByRole('button', { name: 'Simulate: refund settles' }).click();
    await section.getByTestId('refund-row').filter({ hasText: 'succeeded' }).waitFor();
    await section.getByText('Refunded €15.53; refundable €24.47.').waitFor();

    // The rest, prefilled.
    await section.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect.poll(() => section.getByTestId('refund-row').count()).toBe(2);
    await expect.poll(() => section.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
    await screenshots(page, 'refunds-payment-refunded');

    // The Refunds page, filtered by status.
    await page.getByRole('link', { name: 'Refunds', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Refunds' }).waitFor();
    await expect.poll(() => page.getByTestId('refund-row').count()).toBe(2);
    await page.getByLabel('Status').selectOption('succeeded');
    await expect.poll(() => page.getByTestId('refund-row').count()).toBe(1);
    await page.getByRole('cell', { name: '€15.53' }).waitFor();
    await expectAccessible(page, 'refunds page');
    await screenshots(page, 'refunds-list');

    // A refund the network left without a final status is held for review: the list shows it and
    // filters on it (the sandbox bank never holds one, so the row is marked as the Token.io path would).
    await s.ctx.db.execute(sql`update refunds set reconciliation_state = 'manual_review_required',
      review_reason = 'The bank gave no final status for the refund.' where amount = '24.47'`);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Review').selectOption('manual_review_required');
    await expect.poll(() => page.getByTestId('refund-row').count()).toBe(1);
    await page
      .getByTestId('refund-review')
      .getByText('The bank gave no final status for the refund.')
      .waitFor();
    expect(problems).toEqual([]);
  }, 180_000);
});
