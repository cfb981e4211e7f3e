/**
 * Verification links (switch, permissions, 404s, levels), custom levels, attestation and
 * resubmission, with the kyc.status_changed / kyb.status_changed events they cause.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KycMessages } from '../../src/modules/kyc/kyc.messages';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { eventsOf, staffHeaders } from '../org/fixtures';
import { api, createKycWorld, createLink, type KycWorld, simulate } from './fixtures';

let ctx: TestContext;
let w: KycWorld;
beforeAll(async () => {
  ctx = await createTestApp();
  w = await createKycWorld(ctx);
});
afterAll(() => ctx?.close());

const userOf = async (world: KycWorld) =>
  (await api(ctx, 'GET', `/kyc/users/${world.userId}`, world.caller.headers)).json();

describe('verification links', () => {
  it('creates a KYC link: 201 shape, hosted URL, TTL, user pending, event with source client_api', async () => {
    const world = await createKycWorld(ctx);
    const res = await api(ctx, 'POST', `/kyc/users/${world.userId}/verification-link`, world.caller.headers, {
      level: 'basic',
    });
    expect(res.statusCode, res.body).toBe(201);
    const link = res.json();
    expect(Object.keys(link).sort()).toEqual(['expires_at', 'status', 'verification_id', 'verification_url']);
    expect(link.status).toBe('pending');
    expect(link.verification_url).toMatch(/^http:\/\/localhost:8000\/verify\/[A-Za-z0-9_-]{20,}$/);
    expect(new Date(link.expires_at).getTime() - ctx.clock.now().getTime()).toBe(604800 * 1000);
    const user = await userOf(world);
    expect(user.kyc_status).toBe('pending');
    expect(user.verification_mode).toBe('service_kyc');
    const evs = await eventsOf(ctx, world.caller.clientId, 'kyc.status_changed');
    expect(evs).toHaveLength(1);
    expect(evs[0]!.data).toEqual({
      user_id: world.userId,
      email: world.email,
      verification_mode: 'service_kyc',
      previous_kyc_status: 'none',
      current_kyc_status: 'pending',
      previous_external_status: null,
      current_external_status: null,
      previous_verification_source: 'none',
      current_verification_source: 'none',
      source: 'client_api',
    });
    // a second link changes nothing: no second event
    await createLink(ctx, world);
    expect(await eventsOf(ctx, world.caller.clientId, 'kyc.status_changed')).toHaveLength(1);
  });

  it('creates a KYB link and moves the business to pending with kyb.status_changed', async () => {
    const world = await createKycWorld(ctx);
    const link = await createLink(ctx, world, { level: 'kyb-basic' }, 'kyb');
    expect(link.status).toBe('pending');
    const b = await api(ctx, 'GET', `/kyb/businesses/${world.businessId}`, world.caller.headers);
    expect(b.json().kyb_status).toBe('pending');
    const evs = await eventsOf(ctx, world.caller.clientId, 'kyb.status_changed');
    expect(evs).toHaveLength(1);
    expect(evs[0]!.data).toMatchObject({
      business_customer_id: world.businessId,
      company_name: 'Roe Trading Ltd',
      registration_number: '09876543',
      country: 'GB',
      verification_mode: 'service_kyb',
      previous_kyb_status: 'none',
      current_kyb_status: 'pending',
      previous_external_status: null,
      current_external_status: null,
      previous_verification_source: 'none',
      current_verification_source: 'none',
    });
  });

  it('403 when staff switched KYC links off (KYC and KYB), back on again', async () => {
    const world = await createKycWorld(ctx);
    const staff = await staffHeaders(ctx);
    const off = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/clients/${world.caller.clientId}`,
      headers: staff.headers,
      payload: { kyc_links_enabled: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    for (const url of [
      `/kyc/users/${world.userId}/verification-link`,
      `/kyb/businesses/${world.businessId}/verification-link`,
    ]) {
      const res = await api(ctx, 'POST', url, world.caller.headers, {});
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe(M.kycLinksDisabled);
    }
    expect((await userOf(world)).kyc_status).toBe('none');
    await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/clients/${world.caller.clientId}`,
      headers: staff.headers,
      payload: { kyc_links_enabled: true },
    });
    await createLink(ctx, world);
  });

  it('developer is 403 by permission; operations may', async () => {
    const dev = await createTestClient(ctx, { role: 'developer', clientId: w.caller.clientId });
    const res = await api(ctx, 'POST', `/kyc/users/${w.userId}/verification-link`, dev.headers, {});
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(M.insufficientPermissions);
    const ops = await createTestClient(ctx, { role: 'operations', clientId: w.caller.clientId });
    expect(
      (await api(ctx, 'POST', `/kyc/users/${w.userId}/verification-link`, ops.headers, {})).statusCode,
    ).toBe(201);
  });

  it('404 for an unknown user / business, also another client’s', async () => {
    const other = await createKycWorld(ctx);
    for (const id of [randomUUID(), other.userId]) {
      const res = await api(ctx, 'POST', `/kyc/users/${id}/verification-link`, w.caller.headers, {});
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toBe(M.userNotFound);
    }
    const b = await api(
      ctx,
      'POST',
      `/kyb/businesses/${other.businessId}/verification-link`,
      w.caller.headers,
      {},
    );
    expect(b.statusCode).toBe(404);
    expect(b.json().detail).toBe(M.businessCustomerNotFound);
  });

  it('422 for an unknown level, a KYB level on KYC, a bad redirect_url or a malformed id', async () => {
    for (const [body, loc] of [
      [{ level: 'platinum' }, ['body', 'level']],
      [{ level: 'kyb-basic' }, ['body', 'level']],
      [{ redirect_url: 'javascript:alert(1)' }, ['body', 'redirect_url']],
    ] as const) {
      const res = await api(ctx, 'POST', `/kyc/users/${w.userId}/verification-link`, w.caller.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().detail[0].loc).toEqual(loc);
    }
    const unknown = await api(ctx, 'POST', `/kyc/users/${w.userId}/verification-link`, w.caller.headers, {
      level: 'platinum',
    });
    expect(unknown.json().detail[0].msg).toBe(KycMessages.unknownLevel('platinum'));
    const bad = await api(ctx, 'POST', '/kyc/users/not-a-uuid/verification-link', w.caller.headers, {});
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['path', 'user_id']);
  });
});

describe('levels and custom levels', () => {
  it('lists built-in levels unpaginated, for KYC and KYB (developer may read)', async () => {
    const dev = await createTestClient(ctx, { role: 'developer' });
    const kyc = await api(ctx, 'GET', '/kyc/levels', dev.headers);
    expect(kyc.statusCode).toBe(200);
    expect(Object.keys(kyc.json())).toEqual(['levels']);
    expect(kyc.json().levels.map((l: { name: string }) => l.name)).toEqual(['basic', 'standard', 'enhanced']);
    expect(kyc.json().levels[1]).toEqual({
      level_id: null,
      name: 'standard',
      kind: 'kyc',
      description: expect.any(String),
      checks: ['liveness', 'face_match', 'aml'],
      custom: false,
      created_at: null,
    });
    const kyb = await api(ctx, 'GET', '/kyb/levels', dev.headers);
    expect(kyb.json().levels.map((l: { name: string }) => l.name)).toEqual(['kyb-basic', 'kyb-standard']);
  });

  it('creates, lists, uses and deletes a custom level; duplicates 409; unknown checks 422', async () => {
    const world = await createKycWorld(ctx);
    const h = world.caller.headers;
    const created = await api(ctx, 'POST', '/kyc/custom-levels', h, {
      name: 'Gold',
      description: 'Liveness and proof of address',
      checks: ['liveness', 'poa'],
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      name: 'Gold',
      kind: 'kyc',
      checks: ['liveness', 'poa'],
      custom: true,
    });
    for (const name of ['gold', 'GOLD', 'standard']) {
      const dup = await api(ctx, 'POST', '/kyc/custom-levels', h, { name, checks: [] });
      expect(dup.statusCode, name).toBe(409);
      expect(dup.json().detail).toBe(KycMessages.levelExists);
    }
    // the same name is free for KYB and for another client
    expect(
      (await api(ctx, 'POST', '/kyb/custom-levels', h, { name: 'Gold', checks: ['aml'] })).statusCode,
    ).toBe(201);
    expect(
      (await api(ctx, 'POST', '/kyc/custom-levels', w.caller.headers, { name: 'Gold', checks: [] }))
        .statusCode,
    ).toBe(201);
    const badCheck = await api(ctx, 'POST', '/kyc/custom-levels', h, {
      name: 'x1',
      checks: ['liveness', 'telepathy'],
    });
    expect(badCheck.statusCode).toBe(422);
    expect(badCheck.json().detail[0].loc).toEqual(['body', 'checks', 1]);
    const kybCheck = await api(ctx, 'POST', '/kyb/custom-levels', h, { name: 'x2', checks: ['nfc'] });
    expect(kybCheck.statusCode).toBe(422);

    const levels = (await api(ctx, 'GET', '/kyc/levels', h)).json().levels;
    expect(levels.map((l: { name: string }) => l.name)).toEqual(['basic', 'standard', 'enhanced', 'Gold']);
    expect((await api(ctx, 'GET', '/kyc/custom-levels', h)).json().levels).toHaveLength(1);

    const link = await createLink(ctx, world, { level: 'gold' });
    const rec = (await simulate(ctx, world, link.verification_id, 'approved')).json();
    expect(rec.liveness_status).toBe('passed');
    expect(rec.poa_status).toBe('approved');
    expect(rec.face_match_status).toBeNull();
    expect(rec.aml_status).toBeNull();

    const dev = await createTestClient(ctx, { role: 'developer', clientId: world.caller.clientId });
    const id = created.json().level_id;
    expect((await api(ctx, 'DELETE', `/kyc/custom-levels/${id}`, dev.headers)).statusCode).toBe(403);
    expect((await api(ctx, 'DELETE', `/kyc/custom-levels/${id}`, w.caller.headers)).statusCode).toBe(404);
    expect((await api(ctx, 'DELETE', `/kyc/custom-levels/${id}`, h)).statusCode).toBe(204);
    expect((await api(ctx, 'DELETE', `/kyc/custom-levels/${id}`, h)).statusCode).toBe(404);
    const gone = await api(ctx, 'POST', `/kyc/users/${world.userId}/verification-link`, h, { level: 'Gold' });
    expect(gone.statusCode).toBe(422);
  });
});

describe('attestation', () => {
  it('switches to external attestation; kyc_status follows; events with source client_api', async () => {
    const world = await createKycWorld(ctx);
    const url = `/kyc/users/${world.userId}/attestation`;
    const res = await api(ctx, 'POST', url, world.caller.headers, {
      status: 'verified',
      reference: 'ext-123',
      note: 'Verified in branch',
    });
    expect(res.statusCode, res.body).toBe(200);
    const get = await api(ctx, 'GET', `/kyc/users/${world.userId}`, world.caller.headers);
    expect(res.json()).toEqual(get.json());
    expect(res.json()).toMatchObject({
      kyc_status: 'approved',
      verification_mode: 'external_attestation',
      external_status: 'verified',
    });
    const rej = await api(ctx, 'POST', url, world.caller.headers, { status: 'rejected' });
    expect(rej.json().kyc_status).toBe('rejected');
    // the same attestation again changes nothing: no event
    await api(ctx, 'POST', url, world.caller.headers, { status: 'rejected' });
    const pend = await api(ctx, 'POST', url, world.caller.headers, { status: 'pending' });
    expect(pend.json().kyc_status).toBe('pending');
    const evs = await eventsOf(ctx, world.caller.clientId, 'kyc.status_changed');
    expect(evs.map((e) => e.data)).toEqual([
      {
        user_id: world.userId,
        email: world.email,
        verification_mode: 'external_attestation',
        previous_kyc_status: 'none',
        current_kyc_status: 'approved',
        previous_external_status: null,
        current_external_status: 'verified',
        previous_verification_source: 'none',
        current_verification_source: 'external',
        source: 'client_api',
      },
      expect.objectContaining({
        previous_kyc_status: 'approved',
        current_kyc_status: 'rejected',
        previous_external_status: 'verified',
        current_external_status: 'rejected',
      }),
      expect.objectContaining({ previous_kyc_status: 'rejected', current_kyc_status: 'pending' }),
    ]);
  });

  it('validates the body; 404 for another client’s user; developer 403', async () => {
    const other = await createKycWorld(ctx);
    const bad = await api(ctx, 'POST', `/kyc/users/${w.userId}/attestation`, w.caller.headers, {
      status: 'approved',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['body', 'status']);
    const nf = await api(ctx, 'POST', `/kyc/users/${other.userId}/attestation`, w.caller.headers, {
      status: 'verified',
    });
    expect(nf.statusCode).toBe(404);
    const dev = await createTestClient(ctx, { role: 'developer', clientId: w.caller.clientId });
    expect(
      (await api(ctx, 'POST', `/kyc/users/${w.userId}/attestation`, dev.headers, { status: 'verified' }))
        .statusCode,
    ).toBe(403);
  });
});

describe('resubmission', () => {
  it('400 without a record, after approval; a new link after declined, expired or in_review', async () => {
    const world = await createKycWorld(ctx);
    const h = world.caller.headers;
    const none = await api(ctx, 'POST', `/kyc/${world.userId}/resubmit`, h, {});
    expect(none.statusCode).toBe(400);
    expect(none.json().detail).toBe(KycMessages.nothingToResubmit);

    const first = await createLink(ctx, world, {
      level: 'enhanced',
      redirect_url: 'https://shop.example.com/kyc',
    });
    for (const outcome of ['declined', 'expired', 'in_review']) {
      ctx.clock.advanceSeconds(10);
      const last = (await api(ctx, 'GET', `/kyc/detail/${world.userId}/history`, h)).json().records;
      const target = last.length === 0 ? first.verification_id : undefined;
      const vid =
        target ?? (await api(ctx, 'POST', `/kyc/${world.userId}/resubmit`, h, {})).json().verification_id;
      expect((await simulate(ctx, world, vid, outcome)).statusCode).toBe(200);
      const again = await api(ctx, 'POST', `/kyc/${world.userId}/resubmit`, h, {});
      expect(again.statusCode, `${outcome}: ${again.body}`).toBe(201);
      expect(again.json().status).toBe('pending');
      ctx.clock.advanceSeconds(10);
      expect((await simulate(ctx, world, again.json().verification_id, 'approved')).statusCode).toBe(200);
      const approved = await api(ctx, 'POST', `/kyc/${world.userId}/resubmit`, h, {});
      expect(approved.statusCode).toBe(400);
      expect(approved.json().detail).toBe(KycMessages.notResubmittable('approved'));
      // start the next round from a fresh link
      if (outcome !== 'in_review') {
        ctx.clock.advanceSeconds(10);
        const next = await createLink(ctx, world, { level: 'enhanced' });
        expect((await simulate(ctx, world, next.verification_id, 'declined')).statusCode).toBe(200);
        const r = await api(ctx, 'POST', `/kyc/${world.userId}/resubmit`, h, {});
        expect(r.statusCode).toBe(201);
        ctx.clock.advanceSeconds(10);
        await simulate(
          ctx,
          world,
          r.json().verification_id,
          outcome === 'declined' ? 'expired' : 'in_review',
        );
      }
    }
  });

  it('resubmission keeps the previous level; KYB resubmission; switch off is 403', async () => {
    const world = await createKycWorld(ctx);
    const h = world.caller.headers;
    const link = await createLink(ctx, world, { level: 'enhanced' });
    await simulate(ctx, world, link.verification_id, 'declined');
    expect((await userOf(world)).kyc_status).toBe('rejected');
    const r = await api(ctx, 'POST', `/kyc/${world.userId}/resubmit`, h, {});
    expect(r.statusCode).toBe(201);
    expect((await userOf(world)).kyc_status).toBe('pending');
    ctx.clock.advanceSeconds(5);
    const rec = (await simulate(ctx, world, r.json().verification_id, 'approved')).json();
    expect(rec.nfc_status).toBe('passed'); // enhanced again

    const kyb = await createLink(ctx, world, {}, 'kyb');
    expect((await api(ctx, 'POST', `/kyb/${world.businessId}/resubmit`, h, {})).statusCode).toBe(400);
    await simulate(ctx, world, kyb.verification_id, 'declined');
    const kr = await api(ctx, 'POST', `/kyb/${world.businessId}/resubmit`, h, {});
    expect(kr.statusCode, kr.body).toBe(201);

    await simulate(ctx, world, kr.json().verification_id, 'in_review');
    const staff = await staffHeaders(ctx);
    await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/clients/${world.caller.clientId}`,
      headers: staff.headers,
      payload: { kyc_links_enabled: false },
    });
    const off = await api(ctx, 'POST', `/kyb/${world.businessId}/resubmit`, h, {});
    expect(off.statusCode).toBe(403);
  });
});
