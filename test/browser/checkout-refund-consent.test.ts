/**
 * Token.io's amended consent (the bank is asked for the payer's account) is shown only while a bank
 * that is asked is checked, in a real headless Chromium: the checkout page's own HTML and style
 * sheet, the plain sentence for the other banks (docs/vendors/tokenio.md, "Refunds", point 1).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutPage } from '../../src/modules/checkout/views/pages.view';
import { CHECKOUT_CSS } from '../../src/modules/checkout/views/styles.view';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';

const consent = {
  beneficiary: 'Acme Ltd',
  text: "You can use Token.io's payment service to make a secure payment directly from your bank account to the benefit of Acme Ltd.",
  termsUrl: 'https://terms.example/tokenio',
  termsLead: "The terms governing your use of Token.io's service can be found at",
  termsLabel: 'Terms & Conditions',
  refundAccount: {
    text: "You can use Token's payment service to make a secure payment directly from your bank account to the benefit of the Acme Ltd. We will ask your bank to share your account details. We will only use these details when necessary such as processing a refund request.",
    termsLead: "The terms governing your use of Token's service can be found at",
    privacyNoticeUrl: 'https://acme.example/privacy',
  },
};

const view = {
  token: 'tok_abcdefghijklmnop',
  merchantName: 'Acme',
  amount: '20.00',
  currency: 'GBP',
  description: null,
  reference: 'REF123',
  expiresAt: new Date('2030-01-01T00:00:00Z'),
  status: 'pending' as const,
  sandbox: false,
  consent,
};

describe.skipIf(!hasChromium)('the refund-account consent in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => closeInTurn({ browser: () => browser?.close() }));

  it('follows the checked bank: the variant (with the privacy notice) for a bank that is asked, the plain sentence otherwise', async () => {
    const html = checkoutPage(view, [
      { id: 'plain-bank', name: 'Plain Bank', description: 'GB' },
      { id: 'asked-bank', name: 'Asked Bank', description: 'GB', asksRefundAccount: true },
    ]).replace(
      '<link rel="stylesheet" href="/checkout/assets/checkout.css">',
      `<style>${CHECKOUT_CSS}</style>`,
    );
    expect(html).toContain(`<style>`);
    const page = await browser.newPage();
    await page.setContent(html);
    const plain = page.locator('.consent-plain');
    const variant = page.locator('.consent-ra');
    // The first bank (not asked) is checked: the plain sentence only.
    await expect.poll(() => plain.isVisible()).toBe(true);
    expect(await variant.isVisible()).toBe(false);
    await page.locator('#bank-asked-bank').check();
    await expect.poll(() => variant.isVisible()).toBe(true);
    expect(await plain.isVisible()).toBe(false);
    expect(await variant.innerText()).toContain('We will ask your bank to share your account details.');
    expect(await page.getByRole('link', { name: 'privacy notice' }).getAttribute('href')).toBe(
      'https://acme.example/privacy',
    );
    await page.locator('#bank-plain-bank').check();
    await expect.poll(() => plain.isVisible()).toBe(true);
    expect(await variant.isVisible()).toBe(false);
    await page.close();
  });

  it('only the plain sentence when no offered bank is asked; only the variant when every one is', () => {
    const none = checkoutPage(view, [{ id: 'b', name: 'B', description: 'GB' }]);
    expect(none).not.toContain('share your account details');
    const all = checkoutPage(view, [{ id: 'b', name: 'B', description: 'GB', asksRefundAccount: true }]);
    expect(all).toContain('share your account details');
    expect(all).not.toContain('consent-plain');
  });
});
