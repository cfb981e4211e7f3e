/**
 * Contract-backed payments (the link created at completion with key contract:<id>, a frozen project
 * recorded as payment.error with a notification), contract_request_id on POST /checkout/paylink and
 * GET /transactions, and the three contract events with their fields at a real HTTP receiver.
 */
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { notifications, projects, transactions } from '../../src/db/schema/index';
import { settlePaymentJob } from '../../src/modules/contracts/contracts.jobs';
import { runJobs } from '../helpers/jobs';
import { webhookWorld } from '../helpers/suites';
import { eventsOf } from '../org/fixtures';
import { newKey, paylinkBody } from '../payments/fixtures';
import { byRole, call, createTemplate, participants, send, simulate } from './fixtures';

const suite = webhookWorld();
let templateId: string;

beforeAll(async () => {
  templateId = (await createTemplate(suite.ctx, suite.w.caller)).template_id;
});

async function signAll(id: string, r: { participants: { participant_id: string; role: string }[] }) {
  await simulate(
    suite.ctx,
    suite.w.caller,
    id,
    'sign',
    r.participants.find((p) => p.role === 'client')!.participant_id,
  );
  return (
    await simulate(
      suite.ctx,
      suite.w.caller,
      id,
      'sign',
      r.participants.find((p) => p.role === 'company')!.participant_id,
    )
  ).json();
}

describe('contract-backed payments', () => {
  it('checks the payment at send like POST /checkout/paylink', async () => {
    const res = await call(suite.ctx, suite.w.caller)('POST', '/contracts/send', {
      template_id: templateId,
      participants: participants('p0'),
      payment: { amount: '10.001', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'payment', 'amount']);
  });

  it('creates the payment link at completion with contract_request_id and origin contract', async () => {
    const r = await send(suite.ctx, suite.w.caller, {
      template_id: templateId,
      participants: participants('p1'),
      payment: { amount: '99.90', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
    });
    const done = await signAll(r.contract_request_id, r);
    expect(done.status).toBe('completed');
    expect(done.payment.error).toBeNull();
    expect(done.payment.transaction_id).toBeTruthy();
    expect(done.payment.checkout_url).toMatch(/\/checkout\//);
    const [t] = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.id, done.payment.transaction_id));
    expect(t!.contractRequestId).toBe(r.contract_request_id);
    expect(t!.originType).toBe('contract');
    expect(t!.amount).toBe('99.90');
    const list = await call(suite.ctx, suite.w.caller)(
      'GET',
      `/transactions?contract_request_id=${r.contract_request_id}`,
    );
    expect(list.json().transactions.map((x: { transaction_id: string }) => x.transaction_id)).toEqual([
      done.payment.transaction_id,
    ]);

    const extra = await call(suite.ctx, suite.w.caller)(
      'POST',
      '/checkout/paylink',
      paylinkBody(suite.w, { contract_request_id: r.contract_request_id }),
      {
        'x-idempotency-key': newKey(),
      },
    );
    expect(extra.statusCode).toBe(201);
    expect(extra.json().contract_request_id).toBe(r.contract_request_id);

    const pending = await send(suite.ctx, suite.w.caller, {
      template_id: templateId,
      participants: participants('p2'),
    });
    const refused = await call(suite.ctx, suite.w.caller)(
      'POST',
      '/checkout/paylink',
      paylinkBody(suite.w, { contract_request_id: pending.contract_request_id }),
      {
        'x-idempotency-key': newKey(),
      },
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toBe('Contract request is not completed');
    const unknown = await call(suite.ctx, suite.w.caller)(
      'POST',
      '/checkout/paylink',
      paylinkBody(suite.w, { contract_request_id: '018f0000-0000-7000-8000-000000000000' }),
      {
        'x-idempotency-key': newKey(),
      },
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toBe('Contract request not found');
  });

  it('a project frozen before completion: the request completes and payment.error says why', async () => {
    const r = await send(suite.ctx, suite.w.caller, {
      template_id: templateId,
      participants: participants('p3'),
      payment: { amount: '5.00', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
    });
    await suite.ctx.db.update(projects).set({ isFrozen: true }).where(eq(projects.id, suite.w.projectId));
    const done = await signAll(r.contract_request_id, r);
    await suite.ctx.db.update(projects).set({ isFrozen: false }).where(eq(projects.id, suite.w.projectId));
    expect(done.status).toBe('completed');
    expect(done.payment.transaction_id).toBeNull();
    expect(done.payment.error).toBe('Project is frozen by admin');
    const notes = await suite.ctx.db
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.clientId, suite.w.caller.clientId), eq(notifications.category, 'contracts')),
      );
    expect(notes.length).toBeGreaterThan(0);
  });
});

describe('contract.request.completed with a payment', () => {
  const completedEvents = async (id: string) =>
    (await eventsOf(suite.ctx, suite.w.caller.clientId, 'contract.request.completed')).filter(
      (e) => (e.data as { contract_request_id: string }).contract_request_id === id,
    );

  it("carries the payment link's transaction_id and checkout_url, once", async () => {
    const r = await send(suite.ctx, suite.w.caller, {
      template_id: templateId,
      participants: participants('pe1'),
      payment: { amount: '12.00', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
    });
    const done = await signAll(r.contract_request_id, r);
    expect(done.payment.transaction_id).toBeTruthy();
    const evs = await completedEvents(r.contract_request_id);
    expect(evs).toHaveLength(1);
    expect(evs[0]!.data).toMatchObject({
      transaction_id: done.payment.transaction_id,
      checkout_url: done.payment.checkout_url,
      completed_at: done.completed_at,
    });
  });

  it('after a crash between completion and the link, the worker emits it with the link; never twice', async () => {
    const r = await send(suite.ctx, suite.w.caller, {
      template_id: templateId,
      participants: participants('pe2'),
      payment: { amount: '13.00', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
    });
    // The process stops right after the completion commit: the link job's first attempt never ends.
    const settle = settlePaymentJob.run;
    settlePaymentJob.run = async () => {
      throw new Error('the process stopped');
    };
    let done: { status: string; payment: { transaction_id: string | null } };
    try {
      done = await signAll(r.contract_request_id, r);
    } finally {
      settlePaymentJob.run = settle;
    }
    expect(done.status).toBe('completed');
    expect(done.payment.transaction_id).toBeNull();
    // Completed, and the status event is out; the completed event waits for the link.
    const statusEvents = (
      await eventsOf(suite.ctx, suite.w.caller.clientId, 'contract.request.status_changed')
    ).filter(
      (e) => (e.data as { contract_request_id: string }).contract_request_id === r.contract_request_id,
    );
    expect(statusEvents.map((e) => (e.data as { current_status: string }).current_status)).toContain(
      'completed',
    );
    expect(await completedEvents(r.contract_request_id)).toEqual([]);
    suite.ctx.clock.advanceSeconds(5); // the job's first backoff
    expect(await runJobs(suite.ctx)).toBeGreaterThan(0);
    expect(await runJobs(suite.ctx)).toBe(0);
    const after = (
      await call(suite.ctx, suite.w.caller)('GET', `/contracts/requests/${r.contract_request_id}`)
    ).json();
    const evs = await completedEvents(r.contract_request_id);
    expect(evs).toHaveLength(1);
    expect(evs[0]!.data).toMatchObject({
      transaction_id: after.payment.transaction_id,
      checkout_url: after.payment.checkout_url,
    });
    expect(after.payment.transaction_id).toBeTruthy();
  });

  it('with payment.error the event says null for both', async () => {
    const r = await send(suite.ctx, suite.w.caller, {
      template_id: templateId,
      participants: participants('pe3'),
      payment: { amount: '14.00', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
    });
    await suite.ctx.db.update(projects).set({ isFrozen: true }).where(eq(projects.id, suite.w.projectId));
    try {
      const done = await signAll(r.contract_request_id, r);
      expect(done.payment.error).toBe('Project is frozen by admin');
    } finally {
      await suite.ctx.db.update(projects).set({ isFrozen: false }).where(eq(projects.id, suite.w.projectId));
    }
    const evs = await completedEvents(r.contract_request_id);
    expect(evs).toHaveLength(1);
    expect(evs[0]!.data).toMatchObject({ transaction_id: null, checkout_url: null });
  });
});

describe('events at a real receiver', () => {
  it('sends the request, participant and completed events with their fields', async () => {
    const r = await send(suite.ctx, suite.w.caller, {
      template_id: templateId,
      participants: participants('e1'),
      external_reference: 'ORD-1',
    });
    await signAll(r.contract_request_id, r);
    expect(await suite.dispatcher.drain()).toBeGreaterThan(0);
    const got = suite.rx
      .on('/hooks')
      .map((x) => JSON.parse(x.rawBody) as { type: string; data: Record<string, unknown> })
      .filter((e) => e.data.contract_request_id === r.contract_request_id);
    const statuses = got
      .filter((e) => e.type === 'contract.request.status_changed')
      .map((e) => [e.data.previous_status, e.data.current_status]);
    expect(statuses).toEqual(
      expect.arrayContaining([
        [null, 'pending'],
        ['pending', 'sent'],
        ['sent', 'in_progress'],
        ['in_progress', 'completed'],
      ]),
    );
    const first = got.find((e) => e.type === 'contract.request.status_changed')!;
    expect(Object.keys(first.data).sort()).toEqual(
      [
        'actor_account_id',
        'actor_type',
        'contract_request_id',
        'current_status',
        'external_reference',
        'flow_id',
        'previous_status',
        'status_reason',
        'template_ids',
        'title',
      ].sort(),
    );
    const pe = got.filter((e) => e.type === 'contract.participant.status_changed');
    expect(pe.some((e) => e.data.role === 'company' && e.data.current_status === 'completed')).toBe(true);
    expect(Object.keys(pe[0]!.data).sort()).toEqual(
      [
        'business_customer_id',
        'contract_request_id',
        'current_status',
        'decline_reason',
        'email',
        'kind',
        'name',
        'participant_id',
        'previous_status',
        'role',
        'signing_order',
        'user_id',
      ].sort(),
    );
    const completed = got.find((e) => e.type === 'contract.request.completed')!;
    expect(completed.data.external_reference).toBe('ORD-1');
    expect(completed.data.certificate_sha256).toMatch(/^[0-9a-f]{64}$/);
    const docs = completed.data.documents as { download_path: string }[];
    expect(docs[0]!.download_path).toMatch(
      new RegExp(`^/api/v1/contracts/requests/${r.contract_request_id}/documents/`),
    );
    expect((completed.data.participants as unknown[]).length).toBe(2);
    expect(byRole(r, 'client').email).toBe('cleoe1@example.com');
  });
});
