/** A production deployment: no verification simulator, no fake verification. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signProviderPayload } from '../../src/providers/signature';
import { M } from '../../src/shared/messages';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { eventsOf } from '../org/fixtures';
import { api, createKycWorld, type KycWorld } from './fixtures';

let ctx: TestContext;
let w: KycWorld;
beforeAll(async () => {
  ctx = await createTestApp({
    env: {
      ...PRODUCTION_ENV,
    },
  });
  w = await createKycWorld(ctx, { productionAccess: true });
});
afterAll(() => ctx?.close());

it('link generation fails with 500 and leaves the user untouched', async () => {
  for (const url of [
    `/kyc/users/${w.userId}/verification-link`,
    `/kyb/businesses/${w.businessId}/verification-link`,
  ]) {
    const res = await api(ctx, 'POST', url, w.caller.headers, {});
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: M.failedToInitiateKyc });
  }
  expect((await api(ctx, 'GET', `/kyc/users/${w.userId}`, w.caller.headers)).json().kyc_status).toBe('none');
  expect(await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).toHaveLength(0);
});

it('sandbox simulate is 404 and notifications are never accepted', async () => {
  const res = await api(
    ctx,
    'POST',
    '/sandbox/verifications/0190a1b2-0000-7000-8000-000000000000/simulate',
    w.caller.headers,
    { outcome: 'approved' },
  );
  expect(res.statusCode).toBe(404);
  const raw = JSON.stringify({
    event_id: 'e',
    verification_ref: 'r',
    status: 'approved',
    occurred_at: new Date().toISOString(),
  });
  const n = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/providers/verification/notifications',
    payload: raw,
    headers: {
      'content-type': 'application/json',
      'x-provider-signature': signProviderPayload(
        ctx.deps.secrets.providerWebhookSecret,
        raw,
        ctx.clock.now(),
      ),
    },
  });
  expect(n.statusCode).toBe(401);
});
