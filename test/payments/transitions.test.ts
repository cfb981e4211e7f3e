/**
 * Every row of the transition table and of the provider_status mapping table, driven end to end
 * through the sandbox simulate endpoint (which goes through the signed notification route).
 */
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema/index';
import {
  canTransition,
  isTerminal,
  PROVIDER_STATUS_MAP,
  PROVIDER_STATUSES,
  type TransactionStatus,
} from '../../src/modules/payments/payments.machine';
import { signBankPayload } from '../../src/providers/bank/signature';
import { M } from '../../src/shared/messages';
import { paymentApp } from '../helpers/suites';
import { createPaylink, createPaymentWorld, simulate } from './fixtures';

const s = paymentApp();

async function paymentEvents(id: string) {
  return s.ctx.db
    .select()
    .from(events)
    .where(and(eq(events.type, 'payment.status_changed'), sql`${events.data}->>'transaction_id' = ${id}`))
    .orderBy(events.createdAt, events.id);
}

async function getTx(id: string) {
  return (await s.ctx.app.inject({ url: `/api/v1/transactions/${id}`, headers: s.w.caller.headers })).json();
}

async function timeline(id: string) {
  const r = await s.ctx.app.inject({
    url: `/api/v1/transactions/${id}/status-events`,
    headers: s.w.caller.headers,
  });
  expect(r.statusCode).toBe(200);
  return r.json().status_events as Record<string, unknown>[];
}

/** A transaction in `status`, reached through legal moves only. */
async function txIn(status: TransactionStatus): Promise<string> {
  const t = await createPaylink(s.ctx, s.w);
  const path: Record<TransactionStatus, string[]> = {
    pending: [],
    processing: ['awaiting_bank_authorization'],
    success: ['awaiting_bank_authorization', 'completed'],
    failed: ['awaiting_bank_authorization', 'rejected'],
    expired: ['awaiting_bank_authorization', 'expired'],
    canceled: ['awaiting_bank_authorization', 'canceled'],
  };
  for (const code of path[status])
    expect((await simulate(s.ctx, s.w, t.transaction_id, code)).statusCode).toBe(200);
  expect((await getTx(t.transaction_id)).status).toBe(status);
  return t.transaction_id;
}

describe('mapping table x non-terminal statuses', () => {
  for (const from of ['pending', 'processing'] as const) {
    for (const code of PROVIDER_STATUSES) {
      const coarse = PROVIDER_STATUS_MAP[code] as TransactionStatus | null;
      it(`${from} + ${code}`, async () => {
        const id = await txIn(from);
        const before = (await paymentEvents(id)).length;
        const res = await simulate(s.ctx, s.w, id, code);
        expect(res.statusCode).toBe(200);
        const t = res.json();
        const entries = await timeline(id);
        const last = entries[entries.length - 1]!;
        expect(last.provider_status).toBe(code);
        const evs = await paymentEvents(id);
        if (coarse === null || coarse === from) {
          // detail only: on the timeline, no status move, no event
          expect(t.status).toBe(from);
          expect(last).toMatchObject({ kind: 'detail', previous_status: from, status: from });
          expect(evs.length).toBe(before);
        } else if (canTransition(from, coarse)) {
          expect(t.status).toBe(coarse);
          expect(t.provider_status).toBe(code);
          expect(last).toMatchObject({ kind: 'transition', previous_status: from, status: coarse });
          expect(evs.length).toBe(before + 1);
          const ev = evs[evs.length - 1]!;
          expect(ev.data).toMatchObject({
            previous_payment_status: from,
            current_payment_status: coarse,
            status_detail: code,
            // "No final status": money may have moved, so the payment is also held for review.
            reconciliation_state:
              code === 'no_final_status' || code === 'settlement_incomplete'
                ? 'manual_review_required'
                : 'none',
          });
          expect(ev.dedupKey).toBe(`payment:${id}:${coarse}:${last.status_event_id}`);
          if (isTerminal(coarse)) expect(t.completed_at).not.toBeNull();
        } else {
          // pending + a success code: out of order, held for manual review
          expect(t.status).toBe(from);
          expect(t.reconciliation_state).toBe('manual_review_required');
          expect(last).toMatchObject({ kind: 'manual_review' });
          expect(evs.length).toBe(before + 1);
          expect(evs[evs.length - 1]!.data).toMatchObject({
            previous_payment_status: from,
            current_payment_status: from,
            reconciliation_state: 'manual_review_required',
          });
        }
      });
    }
  }
});

describe('terminal statuses never change', () => {
  for (const terminal of ['success', 'failed', 'expired', 'canceled'] as const) {
    it(`${terminal} ignores every code`, async () => {
      const id = await txIn(terminal);
      const before = (await paymentEvents(id)).length;
      for (const code of [...PROVIDER_STATUSES, 'manual_review']) {
        const res = await simulate(s.ctx, s.w, id, code);
        expect(res.statusCode).toBe(200);
        expect(res.json().status).toBe(terminal);
      }
      expect((await paymentEvents(id)).length).toBe(before);
      const cancel = await s.ctx.app.inject({
        method: 'POST',
        url: `/api/v1/checkout/intent/${id}/cancel`,
        headers: s.w.caller.headers,
      });
      expect(cancel.statusCode).toBe(409);
    });
  }
});

describe('transition table rows driven by internal actions', () => {
  it('pending -> canceled (merchant cancel), event with actor', async () => {
    const id = await txIn('pending');
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/checkout/intent/${id}/cancel`,
      headers: s.w.caller.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'canceled', provider_status: 'canceled' });
    const [ev] = await paymentEvents(id);
    expect(ev!.data).toMatchObject({
      previous_payment_status: 'pending',
      current_payment_status: 'canceled',
      actor_type: 'client_user',
      actor_account_id: s.w.caller.accountId,
    });
  });

  it('processing -> canceled (merchant cancel)', async () => {
    const id = await txIn('processing');
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/checkout/intent/${id}/cancel`,
      headers: s.w.caller.headers,
    });
    expect(res.json().status).toBe('canceled');
  });
});

describe('payment.status_changed payload', () => {
  it('carries every data field of the spec and the network time as occurred_at', async () => {
    const id = await txIn('processing');
    const [ev] = await paymentEvents(id);
    expect(Object.keys(ev!.data).sort()).toEqual(
      [
        'transaction_id',
        'ref_id',
        'transfer_id',
        'amount',
        'currency',
        'user_id',
        'business_customer_id',
        'project_id',
        'contract_request_id',
        'previous_payment_status',
        'current_payment_status',
        'reconciliation_state',
        'status_detail',
        'status_reason',
        'actor_type',
        'actor_account_id',
        'metadata',
      ].sort(),
    );
    expect(ev!.data).toMatchObject({
      amount: '125.50',
      currency: 'EUR',
      user_id: s.w.userId,
      actor_type: null,
    });
    expect(ev!.occurredAt.toISOString()).toBe(s.ctx.clock.now().toISOString());
    expect(ev!.clientId).toBe(s.w.caller.clientId);
  });
});

describe('manual review', () => {
  it('manual_review keeps pending, sets reconciliation_state and emits previous == current', async () => {
    const id = await txIn('pending');
    const res = await simulate(s.ctx, s.w, id, 'manual_review');
    expect(res.json()).toMatchObject({ status: 'pending', reconciliation_state: 'manual_review_required' });
    const evs = await paymentEvents(id);
    expect(evs).toHaveLength(1);
    expect(evs[0]!.data).toMatchObject({
      previous_payment_status: 'pending',
      current_payment_status: 'pending',
      reconciliation_state: 'manual_review_required',
    });
    // the review resolves with the network's next status
    const next = await simulate(s.ctx, s.w, id, 'awaiting_bank_authorization');
    expect(next.json()).toMatchObject({ status: 'processing', reconciliation_state: 'none' });
  });
});

describe('bank notification route', () => {
  const url = '/api/v1/providers/bank/notifications';
  const body = (refId: string, code: string) =>
    JSON.stringify({
      event_id: 'evt_1',
      ref_id: refId,
      transfer_id: null,
      provider_status: code,
      occurred_at: '2026-01-15T09:59:00.000Z',
    });
  const signed = (raw: string, at = s.ctx.clock.now()) => ({
    'content-type': 'application/json',
    'x-bank-signature': signBankPayload(s.ctx.deps.secrets.providerWebhookSecret, raw, at),
  });

  it('unsigned, badly signed and stale notifications are 401', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const raw = body(t.ref_id, 'awaiting_bank_authorization');
    const cases = [
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json', 'x-bank-signature': 't=1,v1=deadbeef' },
      { ...signed(raw), 'x-bank-signature': signBankPayload('wrong-secret', raw, s.ctx.clock.now()) },
      signed(raw, new Date(s.ctx.clock.now().getTime() - 301_000)),
    ];
    for (const headers of cases) {
      const res = await s.ctx.app.inject({ method: 'POST', url, payload: raw, headers });
      expect(res.statusCode).toBe(401);
    }
    // garbage is refused for its missing signature before anything parses it
    const junk = await s.ctx.app.inject({
      method: 'POST',
      url,
      payload: '[1,2',
      headers: { 'content-type': 'application/json' },
    });
    expect(junk.statusCode).toBe(401);
    expect(junk.headers['www-authenticate']).toBe('Bearer');
    // tampered body with a valid signature of another body
    const res = await s.ctx.app.inject({
      method: 'POST',
      url,
      payload: body(t.ref_id, 'completed'),
      headers: signed(raw),
    });
    expect(res.statusCode).toBe(401);
    expect((await getTx(t.transaction_id)).status).toBe('pending');
  });

  it('a signed notification applies, with the network time as occurred_at', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const raw = body(t.ref_id, 'awaiting_bank_authorization');
    const res = await s.ctx.app.inject({ method: 'POST', url, payload: raw, headers: signed(raw) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, applied: true });
    const [ev] = await paymentEvents(t.transaction_id);
    expect(ev!.occurredAt.toISOString()).toBe('2026-01-15T09:59:00.000Z');
  });

  it('an unrecognized upstream code collapses to unknown and is never exposed raw', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const raw = body(t.ref_id, 'ACSC_PARTIAL_WEIRD');
    expect(
      (await s.ctx.app.inject({ method: 'POST', url, payload: raw, headers: signed(raw) })).statusCode,
    ).toBe(200);
    const tx = await getTx(t.transaction_id);
    expect(tx).toMatchObject({ status: 'pending', provider_status: 'initiated' });
    const entries = await timeline(t.transaction_id);
    expect(entries[entries.length - 1]).toMatchObject({ provider_status: 'unknown', kind: 'detail' });
    expect(JSON.stringify(entries)).not.toContain('ACSC_PARTIAL_WEIRD');
    expect(await paymentEvents(t.transaction_id)).toHaveLength(0);
  });

  it('a notification for an unknown or replaced ref_id is acknowledged but not applied', async () => {
    const raw = body('ref_does_not_exist', 'completed');
    const res = await s.ctx.app.inject({ method: 'POST', url, payload: raw, headers: signed(raw) });
    expect(res.json()).toEqual({ received: true, applied: false });
  });
});

describe('simulate endpoint', () => {
  it('rejects codes outside the mapping table (422), foreign transactions (404)', async () => {
    const id = await txIn('pending');
    expect((await simulate(s.ctx, s.w, id, 'bogus')).statusCode).toBe(422);
    const other = await createPaymentWorld(s.ctx);
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/sandbox/transactions/${id}/simulate`,
      headers: other.caller.headers,
      payload: { provider_status: 'completed' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: M.transactionNotFound });
  });
});
