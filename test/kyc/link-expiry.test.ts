/**
 * Unused verification links expire: the sweeper marks them expired and a subject with nothing else
 * under way falls back from pending to what its records say, with a `system` status event.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationSessions } from '../../src/db/schema/index';
import { expireUnusedVerificationLinks } from '../../src/modules/kyc/link-expiry.service';
import { createTestApp, type TestContext } from '../helpers/app';
import { eventsOf } from '../org/fixtures';
import { api, createKycWorld, createLink, type KycWorld, simulate, tokenOf } from './fixtures';

// Shorter than the 30-minute access token of the test callers.
const TTL = 600;
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_VERIFICATION_LINK_TTL_SECONDS: String(TTL) } });
});
afterAll(() => ctx?.close());

const userOf = async (w: KycWorld) =>
  (await api(ctx, 'GET', `/kyc/users/${w.userId}`, w.caller.headers)).json();
const businessOf = async (w: KycWorld) =>
  (await api(ctx, 'GET', `/kyb/businesses/${w.businessId}`, w.caller.headers)).json();
const sessionStatus = async (id: string) =>
  (await ctx.db.select().from(verificationSessions).where(eq(verificationSessions.id, id)))[0]!.status;

describe('verification link expiry', () => {
  it('an unused KYC link expires: user back to none, event with source system, page 410, idempotent', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w);
    expect((await userOf(w)).kyc_status).toBe('pending');

    ctx.clock.advanceSeconds(TTL - 1);
    await expireUnusedVerificationLinks(ctx.deps);
    expect(await sessionStatus(link.verification_id)).toBe('pending');

    ctx.clock.advanceSeconds(1);
    expect(await expireUnusedVerificationLinks(ctx.deps)).toBeGreaterThanOrEqual(1);
    expect(await sessionStatus(link.verification_id)).toBe('expired');
    expect((await userOf(w)).kyc_status).toBe('none');
    const evs = await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed');
    expect(evs).toHaveLength(2);
    expect(evs[1]!.data).toMatchObject({
      user_id: w.userId,
      previous_kyc_status: 'pending',
      current_kyc_status: 'none',
      verification_mode: 'service_kyc',
      source: 'system',
    });
    expect(evs[1]!.occurredAt.toISOString()).toBe(link.expires_at);

    const page = await ctx.app.inject({ url: `/verify/${tokenOf(link.verification_url)}` });
    expect(page.statusCode).toBe(410);

    // A second sweep finds nothing and emits nothing.
    expect(await expireUnusedVerificationLinks(ctx.deps)).toBe(0);
    expect(await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).toHaveLength(2);
  });

  it('falls back to the latest decision: a declined user given a new link returns to rejected', async () => {
    const w = await createKycWorld(ctx);
    const first = await createLink(ctx, w);
    expect((await simulate(ctx, w, first.verification_id, 'declined')).statusCode).toBe(200);
    expect((await userOf(w)).kyc_status).toBe('rejected');
    await createLink(ctx, w);
    expect((await userOf(w)).kyc_status).toBe('pending');
    ctx.clock.advanceSeconds(TTL);
    await expireUnusedVerificationLinks(ctx.deps);
    expect((await userOf(w)).kyc_status).toBe('rejected');
    const last = (await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).at(-1)!;
    expect(last.data).toMatchObject({
      previous_kyc_status: 'pending',
      current_kyc_status: 'rejected',
      source: 'system',
    });
  });

  it('keeps pending while another link is still usable, or while the provider reviews', async () => {
    const w = await createKycWorld(ctx);
    const early = await createLink(ctx, w);
    ctx.clock.advanceSeconds(TTL / 2);
    const later = await createLink(ctx, w);
    ctx.clock.advanceSeconds(TTL / 2);
    await expireUnusedVerificationLinks(ctx.deps);
    expect(await sessionStatus(early.verification_id)).toBe('expired');
    expect(await sessionStatus(later.verification_id)).toBe('pending');
    expect((await userOf(w)).kyc_status).toBe('pending');

    // The provider puts the later one in review: it stays pending after its link lapses too.
    expect((await simulate(ctx, w, later.verification_id, 'in_review')).statusCode).toBe(200);
    ctx.clock.advanceSeconds(TTL);
    await expireUnusedVerificationLinks(ctx.deps);
    expect((await userOf(w)).kyc_status).toBe('pending');
  });

  it('an unused KYB link expires the same way (kyb.status_changed, source system)', async () => {
    const w = await createKycWorld(ctx);
    await createLink(ctx, w, {}, 'kyb');
    expect((await businessOf(w)).kyb_status).toBe('pending');
    ctx.clock.advanceSeconds(TTL);
    await expireUnusedVerificationLinks(ctx.deps);
    expect((await businessOf(w)).kyb_status).toBe('none');
    const last = (await eventsOf(ctx, w.caller.clientId, 'kyb.status_changed')).at(-1)!;
    expect(last.data).toMatchObject({
      business_customer_id: w.businessId,
      previous_kyb_status: 'pending',
      current_kyb_status: 'none',
      source: 'system',
    });
  });

  it('leaves a user the client switched to external attestation alone', async () => {
    const w = await createKycWorld(ctx);
    await createLink(ctx, w);
    const att = await api(ctx, 'POST', `/kyc/users/${w.userId}/attestation`, w.caller.headers, {
      status: 'pending',
    });
    expect(att.statusCode, att.body).toBe(200);
    const before = (await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).length;
    ctx.clock.advanceSeconds(TTL);
    await expireUnusedVerificationLinks(ctx.deps);
    const user = await userOf(w);
    expect(user.verification_mode).toBe('external_attestation');
    expect(user.kyc_status).toBe('pending');
    expect(await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).toHaveLength(before);
  });
});
