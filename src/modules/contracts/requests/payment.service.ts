/**
 * Contract-backed payments: at completion the payment link is created through the paylink use case
 * with the key `contract:<id>` (a retry can never create a second link). A failure (e.g. the project
 * was frozen meanwhile) is recorded in `payment.error` with a notification to owner and operations;
 * the request stays completed. The transaction that records the link (or the error) also emits
 * `contract.request.completed`, so the event carries `transaction_id` and `checkout_url`.
 * It runs as the `contracts.settle_payment` job, owed by the completion's transaction, so a crash or
 * a failure is retried by the jobs runner; `payment_due` stays 1 until the link (or its error) is
 * recorded.
 */
import { and, eq } from 'drizzle-orm';
import { contractRequests } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { AppError } from '../../../shared/errors';
import { recordActivity } from '../../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../../notifications/notify.service';
import { createPlatformPaymentLink } from '../../payments/paylink.service';
import { checkoutUrl } from '../../payments/payments.service';
import { AUTOMATIC } from '../../payments/status.service';
import { emitRequestCompleted } from './completed-event.service';
import { CONTRACT_JOBS, type Effects, noEffects, owe } from './effects.service';
import { lockRequestById, participantsOf } from './requests.repo';

/** Creates the link of a completed request with a payment; returns the jobs it owes (the payer's email). */
export async function settleContractPayment(deps: Deps, requestId: string): Promise<Effects> {
  const fx = noEffects();
  const [r] = await deps.db.select().from(contractRequests).where(eq(contractRequests.id, requestId));
  if (r?.status !== 'completed' || r.paymentDue !== 1 || !r.payment) return fx;
  const p = r.payment;
  let transactionId: string | null = null;
  let url: string | null = null;
  let error: string | null = null;
  try {
    const link = await createPlatformPaymentLink(deps, {
      clientId: r.clientId,
      actor: AUTOMATIC,
      key: `contract:${r.id}`,
      body: {
        amount: p.amount,
        currency: p.currency,
        project_id: p.project_id,
        ...(p.user_id ? { user_id: p.user_id } : {}),
        ...(p.business_customer_id ? { business_customer_id: p.business_customer_id } : {}),
        description: p.description ?? r.title.slice(0, 500),
        expires_in_seconds: p.expires_in_seconds ?? 86400,
      },
      origin: { type: 'contract', id: r.id },
      contractRequestId: r.id,
    });
    transactionId = link.transaction.id;
    url = checkoutUrl(deps, link.transaction);
  } catch (err) {
    // Another node is creating it right now: try again later (the key makes it the same link).
    if (err instanceof AppError && err.statusCode === 409)
      throw new Error('payment link creation in progress');
    error = err instanceof AppError ? err.detail : 'Failed to initiate payment';
    deps.log.warn({ err, requestId }, 'contract payment link could not be created');
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const cur = await lockRequestById(tx, r.id);
    if (cur?.paymentDue !== 1 || !cur.payment) return;
    await tx
      .update(contractRequests)
      .set({
        paymentDue: 0,
        payment: { ...cur.payment, transaction_id: transactionId, checkout_url: url, error },
        updatedAt: now,
      })
      .where(and(eq(contractRequests.id, r.id), eq(contractRequests.paymentDue, 1)));
    // The completion event waited for the link: it carries it (null only with payment.error).
    await emitRequestCompleted(tx, cur, { transactionId, checkoutUrl: url }, now);
    await recordActivity(tx, {
      clientId: r.clientId,
      action: error ? 'contract_request.payment_failed' : 'contract_request.payment_created',
      at: now,
      outcome: error ? 'failure' : 'success',
      actor: { type: 'system', accountId: null, credentialId: null },
      target: { type: 'contract_request', id: r.id, label: r.title },
      metadata: { transaction_id: transactionId, error },
    });
    if (error)
      await notify(tx, {
        clientId: r.clientId,
        category: 'contracts',
        severity: 'warning',
        title: 'Contract payment link could not be created',
        body: `"${r.title}" was completed, but its payment link failed: ${error}`,
        item: { type: 'contract_request', id: r.id },
        audience: { roles: OWNER_AND_OPERATIONS },
        at: now,
      });
    else if (cur.delivery === 'email') {
      const ps = await participantsOf(tx, r.id);
      const payer =
        ps.find(
          (x) =>
            (p.user_id && x.userId === p.user_id) ||
            (p.business_customer_id && x.businessCustomerId === p.business_customer_id),
        ) ?? null;
      if (payer && url)
        await owe(tx, now, fx, CONTRACT_JOBS.paymentEmail, { requestId: r.id, email: payer.email });
    }
  });
  return fx;
}
