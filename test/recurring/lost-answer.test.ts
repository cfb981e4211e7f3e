/**
 * A recurring payment whose creation answer was lost and that the network cannot find by its
 * reference (brief H2 point 6): it may have been made, so it is never sent again. The payment is
 * held for manual review (reconciliation_state, event, critical notification), read by reference
 * later, and when its link expires it stays held and the run is not retried.
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notifications, recurringAttempts, transactions } from '../../src/db/schema/index';
import { expireDuePayments } from '../../src/modules/payments/payments.service';
import { HELD_UNKNOWN_OUTCOME } from '../../src/modules/recurring/recurring-attempts.service';
import { BankOutcomeUnknownError, BankProviderError } from '../../src/providers/bank/port';
import { paymentApp } from '../helpers/suites';
import { eventsOf } from '../org/fixtures';
import { advance, api, createActive, DAY, drainRecurring, HOUR, runsOf } from './fixtures';

const s = paymentApp();

describe('a lost creation answer the network cannot find', () => {
  it('holds the payment for review, never sends it again, and an expiry keeps it held without a retry', async () => {
    const mandates = s.ctx.deps.providers.bank.mandates!;
    let sent = 0;
    mandates.initiateMandatePayment = async () => {
      sent++;
      throw new BankOutcomeUnknownError('answer lost, not found by refId', { traceId: 'trace-lost-1' });
    };
    const d = await createActive(s.ctx, s.w, { amount: '10.00' });
    await drainRecurring(s.ctx);
    expect(sent).toBe(1);
    const [run] = await runsOf(s.ctx, s.w, d.definition_id);
    const attempts = await s.ctx.db
      .select()
      .from(recurringAttempts)
      .where(eq(recurringAttempts.runId, run!.run_id));
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      launchDueAt: null,
      launchError: HELD_UNKNOWN_OUTCOME,
      outcome: null,
    });
    const t = (
      await s.ctx.db.select().from(transactions).where(eq(transactions.id, attempts[0]!.transactionId!))
    )[0]!;
    expect(t).toMatchObject({ status: 'pending', reconciliationState: 'manual_review_required' });
    expect(t.networkCheckAt).not.toBeNull();
    const held = (await eventsOf(s.ctx, s.w.caller.clientId, 'payment.status_changed')).filter(
      (e) => e.data.transaction_id === t.id,
    );
    expect(held.at(-1)?.data).toMatchObject({
      previous_payment_status: 'pending',
      current_payment_status: 'pending',
      reconciliation_state: 'manual_review_required',
    });
    const [alert] = await s.ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.clientId, s.w.caller.clientId), eq(notifications.severity, 'critical')));
    expect(alert?.title).toBe(`Payment ${t.refId} needs a manual review`);

    // Hours later the worker does not launch it again.
    await advance(s.ctx, s.w, 2 * HOUR);
    await drainRecurring(s.ctx);
    expect(sent).toBe(1);

    // The link expires: still held (no final status, read on the slow cadence), and no retry.
    await advance(s.ctx, s.w, 8 * DAY);
    await expireDuePayments(s.ctx.deps);
    await drainRecurring(s.ctx);
    const after = (await s.ctx.db.select().from(transactions).where(eq(transactions.id, t.id)))[0]!;
    expect(after).toMatchObject({
      status: 'expired',
      providerStatus: 'no_final_status',
      reconciliationState: 'manual_review_required',
    });
    expect(
      await s.ctx.db.select().from(recurringAttempts).where(eq(recurringAttempts.runId, run!.run_id)),
    ).toHaveLength(1);
    expect(sent).toBe(1);

    // The run failed with a reason of its own, never retried automatically.
    const [failed] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'outcome_unknown', will_retry: false });
    await advance(s.ctx, s.w, 4 * DAY);
    await drainRecurring(s.ctx);
    expect(sent).toBe(1);

    // A manual retry would send a new payment under the same consent: refused while held.
    for (const body of [{}, { run_id: run!.run_id }]) {
      const res = await api(s.ctx, s.w, 'POST', `/recurring-payments/${d.definition_id}/retry`, body);
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toMatch(/manual review/);
    }
    expect(
      await s.ctx.db.select().from(recurringAttempts).where(eq(recurringAttempts.runId, run!.run_id)),
    ).toHaveLength(1);
    expect(sent).toBe(1);
  });

  it('commits a "sent" marker before the send: a relaunch after an error tells the network it may have been sent (review H8 point 2)', async () => {
    const mandates = s.ctx.deps.providers.bank.mandates!;
    const seen: (boolean | undefined)[] = [];
    const markers: (Date | null)[] = [];
    mandates.initiateMandatePayment = async (input) => {
      seen.push(input.sentBefore);
      const [a] = await s.ctx.db
        .select()
        .from(recurringAttempts)
        .where(
          eq(
            recurringAttempts.transactionId,
            (await s.ctx.db.select().from(transactions).where(eq(transactions.refId, input.refId)))[0]!.id,
          ),
        );
      markers.push(a?.networkSentAt ?? null);
      if (seen.length === 1) throw new Error('connection reset after the send');
      throw new BankOutcomeUnknownError('sent before and not found by refId');
    };
    await createActive(s.ctx, s.w, { amount: '11.00' });
    await drainRecurring(s.ctx);
    expect(seen).toEqual([false]);
    expect(markers[0]).not.toBeNull();
    await advance(s.ctx, s.w, 2 * 60_000);
    await drainRecurring(s.ctx);
    expect(seen).toEqual([false, true]);
  });

  it('a send the network certainly did not act on (429, 401/403, open breaker) clears the marker: the relaunch sends normally', async () => {
    const mandates = s.ctx.deps.providers.bank.mandates!;
    const seen: (boolean | undefined)[] = [];
    mandates.initiateMandatePayment = async (input) => {
      seen.push(input.sentBefore);
      if (seen.length === 1) {
        const e = new BankProviderError('Token.io payments.initiate: HTTP 401');
        e.notSent = true;
        throw e;
      }
      throw new BankOutcomeUnknownError('stop here');
    };
    await createActive(s.ctx, s.w, { amount: '12.00' });
    await drainRecurring(s.ctx);
    await advance(s.ctx, s.w, 2 * 60_000);
    await drainRecurring(s.ctx);
    expect(seen).toEqual([false, false]);
  });
});
