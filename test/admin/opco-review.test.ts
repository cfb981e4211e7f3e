/**
 * Opco review on a production deployment: submit goes to pending_superadmin_review, staff approve
 * forwards it to the network (awaiting_approval), a second approve activates it; reject and
 * deactivate; every refused transition is a clear 400; each transition emits one event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDueOpcos } from '../../src/modules/opcos/opco-review.service';
import { M } from '../../src/shared/messages';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { companyBody, eventsOf, staffHeaders } from '../org/fixtures';

let ctx: TestContext;
let client: TestCaller;
let staff: Record<string, string>;

beforeAll(async () => {
  ctx = await createTestApp({
    env: {
      ...PRODUCTION_ENV,
      SVC_SANDBOX_OPCO_ACTIVATION_SECONDS: '1',
    },
  });
  client = await createTestClient(ctx, { productionAccess: true });
  staff = (await staffHeaders(ctx)).headers;
});
afterAll(() => ctx.close());

const api = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers, payload: payload as object });

async function submitted(): Promise<string> {
  const o = (await api('POST', '/opcos', client.headers, companyBody())).json();
  const s = await api('POST', `/opcos/${o.opco_id}/submit`, client.headers);
  expect(s.json().status).toBe('pending_superadmin_review');
  return o.opco_id;
}

const transitions = async (opcoId: string) =>
  (await eventsOf(ctx, client.clientId, 'opco.status_changed'))
    .filter((e) => e.data.opco_id === opcoId)
    .map((e) => `${e.data.previous_opco_status}->${e.data.current_opco_status}`);

describe('production review', () => {
  it('staff approve twice: review -> network -> activated; then deactivate', async () => {
    const id = await submitted();
    const again = await api('POST', `/opcos/${id}/submit`, client.headers);
    expect(again.json()).toEqual({ detail: M.opcoAlreadyInStatus('pending_superadmin_review') });

    const a1 = await api('POST', `/admin/opcos/${id}/approve`, staff, { reason: 'KYB checked' });
    expect(a1.statusCode).toBe(200);
    expect(a1.json()).toMatchObject({
      status: 'awaiting_approval',
      sub_tpp_id: null,
      status_reason: 'KYB checked',
    });
    // Production has no approval simulator: the worker leaves it alone.
    ctx.clock.advanceSeconds(600);
    await activateDueOpcos(ctx.deps);
    expect((await api('GET', `/opcos/${id}`, client.headers)).json().status).toBe('awaiting_approval');

    const a2 = await api('POST', `/admin/opcos/${id}/approve`, staff);
    expect(a2.json()).toMatchObject({ status: 'activated', status_reason: null });
    expect(a2.json().sub_tpp_id).toMatch(/^stpp_/);
    const a3 = await api('POST', `/admin/opcos/${id}/approve`, staff);
    expect(a3.statusCode).toBe(400);
    expect(a3.json()).toEqual({ detail: "Opco in 'activated' status cannot be approved" });

    const d = await api('POST', `/admin/opcos/${id}/deactivate`, staff, { reason: 'Fraud' });
    expect(d.json()).toMatchObject({
      status: 'deactivated',
      status_reason: 'Fraud',
      sub_tpp_id: a2.json().sub_tpp_id,
    });
    const d2 = await api('POST', `/admin/opcos/${id}/deactivate`, staff);
    expect(d2.json()).toEqual({ detail: "Opco in 'deactivated' status cannot be deactivated" });

    expect(await transitions(id)).toEqual([
      'draft->pending_superadmin_review',
      'pending_superadmin_review->awaiting_approval',
      'awaiting_approval->activated',
      'activated->deactivated',
    ]);
    const last = (await eventsOf(ctx, client.clientId, 'opco.status_changed')).at(-1)!;
    expect(last.data).toEqual({
      opco_id: id,
      sub_tpp_id: a2.json().sub_tpp_id,
      name: 'Acme Payments Ltd',
      previous_opco_status: 'activated',
      current_opco_status: 'deactivated',
      opco_status_reason: 'Fraud',
    });
    expect(last.occurredAt.toISOString()).toBe(ctx.clock.now().toISOString());
  });

  it('reject from review and from the network stage; never from draft or rejected', async () => {
    const id = await submitted();
    const r = await api('POST', `/admin/opcos/${id}/reject`, staff, { reason: 'Incomplete' });
    expect(r.json()).toMatchObject({ status: 'rejected', status_reason: 'Incomplete' });
    expect((await api('POST', `/admin/opcos/${id}/reject`, staff)).json()).toEqual({
      detail: "Opco in 'rejected' status cannot be rejected",
    });
    expect((await api('POST', `/admin/opcos/${id}/approve`, staff)).statusCode).toBe(400);
    expect((await api('POST', `/admin/opcos/${id}/deactivate`, staff)).statusCode).toBe(400);

    const id2 = await submitted();
    await api('POST', `/admin/opcos/${id2}/approve`, staff);
    expect((await api('POST', `/admin/opcos/${id2}/reject`, staff)).json().status).toBe('rejected');
    expect(await transitions(id2)).toEqual([
      'draft->pending_superadmin_review',
      'pending_superadmin_review->awaiting_approval',
      'awaiting_approval->rejected',
    ]);

    const draft = (await api('POST', '/opcos', client.headers, companyBody())).json();
    for (const action of ['approve', 'reject', 'deactivate']) {
      const res = await api('POST', `/admin/opcos/${draft.opco_id}/${action}`, staff);
      expect(res.statusCode, action).toBe(400);
      expect(res.json().detail).toMatch(/^Opco in 'draft' status cannot be /);
    }
    expect(await transitions(draft.opco_id)).toEqual([]);
  });

  it('lists the review queue across clients; unknown opcos are 404; clients cannot act', async () => {
    const id = await submitted();
    const queue = (
      await api('GET', '/admin/opcos?status=pending_superadmin_review&page_size=200', staff)
    ).json();
    expect(queue.opcos.some((o: { opco_id: string }) => o.opco_id === id)).toBe(true);
    expect(queue.opcos.every((o: { status: string }) => o.status === 'pending_superadmin_review')).toBe(true);
    const unknown = await api('POST', '/admin/opcos/00000000-0000-4000-8000-000000000000/approve', staff);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ detail: M.opcoNotFound });
    expect((await api('POST', `/admin/opcos/${id}/approve`, client.headers)).statusCode).toBe(401);
    expect((await api('POST', `/admin/opcos/not-a-uuid/approve`, staff)).statusCode).toBe(422);
  });

  it('production clients without production access get 403', async () => {
    const noAccess = await createTestClient(ctx);
    const res = await api('GET', '/opcos', noAccess.headers);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: M.productionAccessDisabled });
    await api('PATCH', `/admin/clients/${noAccess.clientId}`, staff, { production_access_enabled: true });
    expect((await api('GET', '/opcos', noAccess.headers)).statusCode).toBe(200);
  });
});
