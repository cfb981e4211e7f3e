/**
 * A real headless Chromium completes the hosted wallet proof page: a wrong signature is refused,
 * "Sign with the sandbox test key" makes a real EIP-191 signature that the service verifies, the
 * browser lands on the client's redirect_url; a Satoshi test is started and "I sent it" reports the
 * deposit through the signed chain-observer route; unknown tokens are 404 and expired ones 410.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';
import { createKycWorld, type KycWorld } from '../kyc/fixtures';
import { api } from '../screening/fixtures';

describe.skipIf(!hasChromium)('hosted wallet proof page in Chromium', () => {
  let ctx: TestContext;
  let w: KycWorld;
  let browser: Browser;
  let merchant: http.Server;
  let merchantBase: string;

  beforeAll(async () => {
    merchant = http.createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Merchant</title><h1>Done</h1>');
    });
    await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', () => r()));
    merchantBase = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
    const port = await freePort();
    ctx = await createTestApp({ env: { SVC_PUBLIC_URL: `http://127.0.0.1:${port}` } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    w = await createKycWorld(ctx);
    browser = await launchChromium();
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      ctx: () => ctx?.close(),
      merchant: () => new Promise((r) => merchant?.close(r)),
    }),
  );

  const create = async (body: Record<string, unknown>) => {
    const res = await api(ctx)('POST', '/screening/wallet-ownership/requests', w.caller.headers, {
      user_id: w.userId,
      ...body,
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  };

  it('signs with the sandbox test key after a refused signature and returns to the client', async () => {
    const r = await create({
      chain: 'ethereum',
      address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      redirect_url: `${merchantBase}/wallets/return`,
    });
    const page = await browser.newPage();
    try {
      await page.goto(r.proof_url);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Prove wallet ownership');
      expect(await page.textContent('#challenge')).toBe(r.challenge.message);
      await page.getByLabel('Signature').fill(`0x${'11'.repeat(65)}`);
      await page.getByRole('button', { name: 'Submit signature' }).click();
      expect(await page.getByRole('alert').textContent()).toBe('Invalid signature');
      await page.getByRole('button', { name: 'Sign with the sandbox test key' }).click();
      await page.waitForURL(`${merchantBase}/**`);
      expect(new URL(page.url()).searchParams.get('request_id')).toBe(r.request_id);
      const got = (
        await api(ctx)('GET', `/screening/wallet-ownership/requests/${r.request_id}`, w.caller.headers)
      ).json();
      expect(got).toMatchObject({ status: 'verified', method: 'message_signing', attempts_remaining: 4 });
    } finally {
      await page.close();
    }
  });

  it('runs a Satoshi test to the end with "I sent it"', async () => {
    const r = await create({ chain: 'bitcoin', address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' });
    const page = await browser.newPage();
    try {
      await page.goto(r.proof_url);
      await page.getByRole('button', { name: 'Start the Satoshi test' }).click();
      const amount = await page.textContent('#amount');
      expect(amount).toMatch(/^0\.000\d\d BTC$/);
      await page.getByRole('button', { name: 'I sent it' }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Wallet verified');
      const got = (
        await api(ctx)('GET', `/screening/wallet-ownership/requests/${r.request_id}`, w.caller.headers)
      ).json();
      expect(got).toMatchObject({ status: 'verified', method: 'satoshi_test' });
      expect(`${got.satoshi_test.amount} BTC`).toBe(amount);
    } finally {
      await page.close();
    }
  });

  it('declares ownership; unknown tokens are 404 and expired ones 410', async () => {
    const r = await create({
      chain: 'tron',
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      methods: ['self_declaration'],
    });
    const page = await browser.newPage();
    try {
      await page.goto(r.proof_url);
      await page.getByLabel('Your full name').fill('Jane Roe');
      await page.getByRole('button', { name: 'I declare that I control this wallet' }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Wallet verified');
      const unknown = await page.goto(`${new URL(r.proof_url).origin}/wallet-proof/${'A'.repeat(43)}`);
      expect(unknown?.status()).toBe(404);
      const e = await create({ chain: 'ethereum', address: `0x${'e'.repeat(40)}`, expires_in_seconds: 300 });
      ctx.clock.advance(301_000);
      const expired = await page.goto(e.proof_url);
      expect(expired?.status()).toBe(410);
    } finally {
      await page.close();
    }
  });
});
