/**
 * A real headless Chromium completes the hosted remediation page `/remediate/{token}` for each
 * remediation type: source_of_funds (with a document upload), identity_reverification (through the
 * hosted verification page it links to) and wallet_ownership (through the wallet proof page): the
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
import { createKycWorld } from '../kyc/fixtures';
import { api, type Json, putPolicy, rule, submit } from './fixtures';

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
      await page.getByLabel('Supporting document (optional)').setInputFiles({
        name: 'statement.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('Savings account statement 2016-2026\n'),
      });
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
          answers: {
            source: 'savings',
            explanation: 'Savings from ten years of salary.',
            document: { file_name: 'statement.txt', content_type: 'text/plain; charset=utf-8', size: 36 },
          },
        },
      });
      const doc = await api(ctx)(
        'GET',
        `/monitoring/transactions/${t.monitored_transaction_id}/remediation/documents/${got.remediation.answers.document.document_id}`,
        owner,
      );
      expect(doc.body).toBe('Savings account statement 2016-2026\n');

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
      // Both were due at the drain and sent at once: they may arrive in either order.
      expect(events).toHaveLength(2);
      expect(events).toEqual(
        expect.arrayContaining([
          ['NONE', 'AWAITING_USER', 'pending'],
          ['AWAITING_USER', 'IN_REVIEW', 'submitted'],
        ]),
      );
    } finally {
      await page.close();
    }
  });

  /** A user's transaction, put in review (sandbox prefix) and then AWAITING_USER by a reviewer. */
  async function awaitingUser(type: string, counterparty?: Record<string, unknown>) {
    const w = await createKycWorld(ctx, { clientId: owner.clientId });
    const t = await submit(ctx, owner, {
      client_reference: `sim_review_${type}_${Date.now()}`,
      customer: undefined,
      user_id: w.userId,
      ...(counterparty ? { counterparty } : {}),
    });
    const res = await api(ctx)(
      'POST',
      `/monitoring/transactions/${t.monitored_transaction_id}/review`,
      owner,
      {
        decision: 'AWAITING_USER',
        remediation_type: type,
        note: 'The customer must act',
      },
    );
    return res.json() as { monitored_transaction_id: string; remediation_url: string; remediation: Json };
  }
  const current = async (id: string) =>
    (await api(ctx)('GET', `/monitoring/transactions/${id}`, owner)).json();

  it('identity_reverification: the page links to the verification, whose result moves the transaction on', async () => {
    const aw = await awaitingUser('identity_reverification');
    const page = await browser.newPage();
    try {
      await page.goto(aw.remediation_url);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm your identity');
      await page.getByRole('link', { name: 'Verify your identity' }).click();
      await page.getByRole('heading', { name: 'Complete verification' }).waitFor();
      await page.getByLabel('Approved').check();
      await page.getByRole('button', { name: 'Submit verification' }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await current(aw.monitored_transaction_id)).toMatchObject({
        decision: 'IN_REVIEW',
        remediation_status: 'submitted',
        remediation: { answers: { verification_status: 'approved' } },
      });
    } finally {
      await page.close();
    }
  });

  it('wallet_ownership: the page links to the wallet proof page, whose verified proof moves it on', async () => {
    const aw = await awaitingUser('wallet_ownership', {
      name: 'Own wallet',
      wallet: { chain: 'ethereum', address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' },
    });
    const page = await browser.newPage();
    try {
      await page.goto(aw.remediation_url);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm wallet ownership');
      await page.getByRole('link', { name: 'Prove wallet ownership' }).click();
      await page.getByRole('button', { name: 'Sign with the sandbox test key' }).click();
      await page.getByRole('heading', { name: 'Wallet verified' }).waitFor();
      expect(await current(aw.monitored_transaction_id)).toMatchObject({
        decision: 'IN_REVIEW',
        remediation_status: 'submitted',
        remediation: {
          answers: {
            ownership_status: 'verified',
            ownership_request_id: aw.remediation.ownership_request_id,
          },
        },
      });
      // The remediation link is used up.
      expect((await page.goto(aw.remediation_url))?.status()).toBe(410);
    } finally {
      await page.close();
    }
  });
});
