/** The hosted verification page over HTTP: states (open, used, expired, unknown) and the form submission. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { eventsOf } from '../org/fixtures';
import { api, createKycWorld, createLink, type KycWorld, tokenOf } from './fixtures';

let ctx: TestContext;
let w: KycWorld;
beforeAll(async () => {
  ctx = await createTestApp();
  w = await createKycWorld(ctx);
});
afterAll(() => ctx?.close());

const page = (token: string) => ctx.app.inject({ url: `/verify/${token}` });
const submit = (token: string, form: string) =>
  ctx.app.inject({
    method: 'POST',
    url: `/verify/${token}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form,
  });

describe('hosted verification page', () => {
  it('shows who is verified, the level and the tester controls with labels', async () => {
    const link = await createLink(ctx, w, { level: 'enhanced' });
    const res = await page(tokenOf(link.verification_url));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('Jane Roe');
    expect(res.body).toContain(w.email);
    expect(res.body).toContain('enhanced');
    for (const id of [
      'outcome-approved',
      'outcome-declined',
      'outcome-in_review',
      'outcome-expired',
      'check-nfc',
      'aml-hits',
    ])
      expect(res.body).toContain(`for="${id}"`);
    expect(res.body).toContain('/checkout/assets/checkout.css');
  });

  it('submitting records the result through the signed notification path, then the link is used (410)', async () => {
    const link = await createLink(ctx, w, { level: 'standard' });
    const token = tokenOf(link.verification_url);
    const res = await submit(token, 'outcome=declined&liveness=on&aml=on&aml_hits=3');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain('Verification declined');
    const rec = (await api(ctx, 'GET', `/kyc/detail/${w.userId}`, w.caller.headers)).json();
    expect(rec).toMatchObject({
      verification_id: link.verification_id,
      status: 'declined',
      liveness_status: 'failed',
      face_match_status: null,
      aml_total_hits: 3,
    });
    expect((await api(ctx, 'GET', `/kyc/users/${w.userId}`, w.caller.headers)).json().kyc_status).toBe(
      'rejected',
    );
    const evs = await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed');
    expect(evs.at(-1)!.data).toMatchObject({ current_kyc_status: 'rejected', source: 'provider_webhook' });
    for (const r of [await page(token), await submit(token, 'outcome=approved')]) {
      expect(r.statusCode).toBe(410);
      expect(r.body).toContain('already used');
    }
  });

  it('redirects to redirect_url with verification_id appended', async () => {
    ctx.clock.advanceSeconds(10);
    const link = await createLink(ctx, w, { redirect_url: 'https://shop.example.com/kyc/done?step=2' });
    const res = await submit(tokenOf(link.verification_url), 'outcome=approved');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `https://shop.example.com/kyc/done?step=2&verification_id=${link.verification_id}`,
    );
  });

  it('422 page for a missing outcome or a bad AML count; the link stays usable', async () => {
    const link = await createLink(ctx, w);
    const token = tokenOf(link.verification_url);
    const none = await submit(token, 'liveness=on');
    expect(none.statusCode).toBe(422);
    expect(none.body).toContain('role="alert"');
    expect((await submit(token, 'outcome=approved&aml=on&aml_hits=-1')).statusCode).toBe(422);
    expect((await page(token)).statusCode).toBe(200);
  });

  it('expired and unknown tokens give clear pages, never a stack trace', async () => {
    const link = await createLink(ctx, w);
    ctx.clock.advanceSeconds(604800);
    const expired = await page(tokenOf(link.verification_url));
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('expired');
    expect((await submit(tokenOf(link.verification_url), 'outcome=approved')).statusCode).toBe(410);
    ctx.clock.advanceSeconds(-604800); // back, so the caller's token stays valid for the next tests
    for (const t of ['unknown-token-123456', 'short', 'x'.repeat(150)]) {
      const res = await page(t);
      expect(res.statusCode, t).toBe(404);
      expect(res.body).toContain('Verification not found');
      expect((await submit(t, 'outcome=approved')).statusCode).toBe(404);
    }
  });

  it('KYB page shows the company', async () => {
    const link = await createLink(ctx, w, {}, 'kyb');
    const res = await page(tokenOf(link.verification_url));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Roe Trading Ltd');
    expect(res.body).toContain('Business verification');
    expect(res.body).not.toContain('check-nfc');
  });
});
