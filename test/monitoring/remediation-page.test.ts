/**
 * A real headless Chromium completes the hosted remediation page `/remediate/{token}`: the
 * transaction moves AWAITING_USER -> IN_REVIEW with `remediation_status: submitted` and the
 * answers, the status_changed webhook arrives at a real receiver, and the link is single use.
 * Skips only when no Chromium is installed.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { createTestApp, type TestContext } from '../helpers/app';
import { hasChromium, launchChromium } from '../helpers/browser';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { freePort } from '../helpers/process';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { setMainWebhook } from '../helpers/webhooks';
import { api, putPolicy, rule, submit } from './fixtures';

describe.skipIf(!hasChromium)('hosted remediation page in Chromium', () => {
  let ctx: TestContext;
  let browser: Browser;
  let rx: Receiver;
  let dispatcher: DeliveryDispatcher;
  let owner: TestCaller;

  beforeAll(async () => {
    rx = await startReceiver();
    const port = await freePort();
    ctx = await createTestApp({ env: { SVC_PUBLIC_URL: `http://127.0.0.1:${port}` } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    dispatcher = createDeliveryDispatcher(ctx.deps);
    owner = await createTestClient(ctx);
    await setMainWebhook(ctx, owner.clientId, `${rx.url}/hooks`);
    await putPolicy(ctx, owner, {
      rules: [
        rule(
          'sof',
          'amount_above',
          { amount: '5000', currency: 'EUR' },
          {
            action: 'require_user',
            remediation_type: 'source_of_funds',
          },
        ),
      ],
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dispatcher?.close();
    await ctx?.close();
    await rx?.close();
  });

  it('the customer answers the source-of-funds questionnaire and the reviewer sees it', async () => {
    const t = await submit(ctx, owner, { amount: '7500.00', counterparty: { name: 'Dealer GmbH' } });
    expect(t.decision).toBe('AWAITING_USER');
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    try {
      await page.goto(t.remediation_url!);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
        'Tell us about the source of funds',
      );
      expect(await page.textContent('.amount')).toContain('7,500.00');
      await page.getByLabel('Where do the funds come from?').selectOption('savings');
      await page.getByLabel('Explain the origin of the funds').fill('Savings from ten years of salary.');
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.getByRole('heading', { name: 'Thank you' }).waitFor();

      const got = (
        await api(ctx)('GET', `/monitoring/transactions/${t.monitored_transaction_id}`, owner)
      ).json();
      expect(got).toMatchObject({
        decision: 'IN_REVIEW',
        remediation_status: 'submitted',
        remediation_url: null,
        remediation: {
          type: 'source_of_funds',
          status: 'submitted',
          answers: { source: 'savings', explanation: 'Savings from ten years of salary.' },
        },
      });

      // Single use: the link now answers 410.
      const again = await page.goto(t.remediation_url!);
      expect(again?.status()).toBe(410);
      const unknown = await page.goto(`${ctx.config.publicUrl}/remediate/${'x'.repeat(43)}`);
      expect(unknown?.status()).toBe(404);

      await dispatcher.drain();
      const events = rx
        .on('/hooks')
        .map((r) => JSON.parse(r.rawBody) as { type: string; data: Record<string, unknown> })
        .filter((e) => e.data.monitored_transaction_id === t.monitored_transaction_id)
        .map((e) => [e.data.previous_decision, e.data.decision, e.data.remediation_status]);
      expect(events).toEqual([
        ['NONE', 'AWAITING_USER', 'pending'],
        ['AWAITING_USER', 'IN_REVIEW', 'submitted'],
      ]);
    } finally {
      await page.close();
    }
  });
});
