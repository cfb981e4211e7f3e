/**
 * The invoice's payment link on the platform's collection project (SVC_BILLING_COLLECTION_PROJECT_ID):
 * created through the one paylink use case with key `invoice:<invoice_id>` and origin
 * `{type: 'invoice', id}`, outside any database transaction, as the `billing.invoice_payment_link`
 * job owed by the finalization (first tried right after its commit). The invoice row shows its state
 * (payment_link_state, attempts, last error); a failure is recorded there and retried by the jobs
 * runner, and the idempotency key makes a retry after a crash return the same link. Settling the
 * link, made or given up, releases the invoice email that waited for it.
 */
import { eq, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import { invoices } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { defineJob, enqueueJobId, type JobContext, PermanentJobError } from '../../platform/jobs/index';
import { AppError, ValidationError } from '../../shared/errors';
import { findOrCreateBusiness } from '../customers/customers.service';
import { createPlatformPaymentLink } from '../payments/paylink.service';
import { checkoutUrl } from '../payments/payments.service';
import { AUTOMATIC } from '../payments/status.service';
import { isCollectible } from './billing.machine';
import { type InvoiceRow, updateInvoice } from './billing.repo';
import { oweInvoiceEmail } from './invoice-email.service';

export const PAYMENT_LINK_MAX_ATTEMPTS = 6;

/** Link lifetime: until the end of the due date (as of finalization, so a retry asks for the same link), 1-30 days. */
function linkLifetimeSeconds(inv: InvoiceRow): number {
  const end = new Date(`${inv.dueDate}T23:59:59Z`).getTime();
  const from = (inv.finalizedAt ?? inv.createdAt).getTime();
  return Math.min(30 * 86400, Math.max(86400, Math.floor((end - from) / 1000)));
}

async function createLink(deps: Deps, inv: InvoiceRow) {
  const res = await deps.db.execute(
    sql`select client_id from projects where id = ${deps.config.billingCollectionProjectId}::uuid`,
  );
  const platformClientId = rowsOf<{ client_id: string }>(res)[0]?.client_id;
  if (!platformClientId) throw new Error('SVC_BILLING_COLLECTION_PROJECT_ID names no project');
  const details = inv.billingDetails;
  const payer = await findOrCreateBusiness(deps, platformClientId, {
    company_name: details?.company_name ?? 'Client',
    email: details?.billing_email ?? `client-${inv.clientId}@invalid`,
    // ZZ: "unknown or unspecified country" when the client gave no address.
    country: details?.address?.country ?? 'ZZ',
  });
  return createPlatformPaymentLink(deps, {
    clientId: platformClientId,
    actor: AUTOMATIC,
    key: `invoice:${inv.id}`,
    body: {
      amount: inv.amountDue,
      currency: inv.currency,
      project_id: deps.config.billingCollectionProjectId!,
      business_customer_id: payer.business_customer_id,
      description: `Invoice ${inv.number}`,
      expires_in_seconds: linkLifetimeSeconds(inv),
    },
    origin: { type: 'invoice', id: inv.id },
  });
}

/** Records the link's outcome on the invoice; the email that waited for the link is owed now. */
async function settle(deps: Deps, inv: InvoiceRow, changes: Partial<InvoiceRow>) {
  await deps.db.transaction(async (tx: DbOrTx) => {
    const now = deps.clock.now();
    const release = inv.emailState === 'waiting';
    await updateInvoice(tx, inv.id, { ...changes, ...(release ? { emailState: 'pending' } : {}) });
    if (release) await oweInvoiceEmail(tx, now, inv.id, inv.clientId);
  });
}

/** Creates the payment link of one invoice; records the outcome on the invoice. */
async function createInvoiceLink(deps: Deps, invoiceId: string, ctx: JobContext): Promise<void> {
  const [inv] = await deps.db.select().from(invoices).where(eq(invoices.id, invoiceId));
  if (inv?.paymentLinkState !== 'pending') return;
  if (!isCollectible(inv.status)) {
    await settle(deps, inv, { paymentLinkState: 'none', paymentLinkNextAt: null });
    return;
  }
  try {
    const { transaction } = await createLink(deps, inv);
    await settle(deps, inv, {
      paymentLinkState: 'created',
      paymentLinkAttempts: ctx.attempt,
      paymentLinkNextAt: null,
      paymentLinkError: null,
      transactionId: transaction.id,
      paymentUrl: checkoutUrl(deps, transaction),
    });
  } catch (err) {
    const message = err instanceof AppError ? err.detail : err instanceof Error ? err.message : String(err);
    // A refused body (an amount over SVC_PAYMENT_MAX_AMOUNT, say) would be refused again: no retries.
    const giveUp = ctx.lastAttempt || err instanceof ValidationError;
    // The invoice (PDF, bank details) is not held back by a failing link.
    await settle(deps, inv, {
      paymentLinkState: giveUp ? 'failed' : 'pending',
      paymentLinkAttempts: ctx.attempt,
      paymentLinkError: message.slice(0, 500),
      paymentLinkNextAt: null,
    });
    throw err instanceof ValidationError ? new PermanentJobError(message) : new Error(message);
  }
}

export const invoicePaymentLinkJob = defineJob<{ invoiceId: string }>({
  kind: 'billing.invoice_payment_link',
  maxAttempts: PAYMENT_LINK_MAX_ATTEMPTS,
  backoffSeconds: [60, 300, 900, 3600, 10800],
  run: (deps, { invoiceId }, ctx) => createInvoiceLink(deps, invoiceId, ctx),
});

/** Owes the link from the finalization's transaction. */
export function oweInvoicePaymentLink(tx: DbOrTx, now: Date, invoiceId: string, clientId: string) {
  return enqueueJobId(tx, { now: () => now }, invoicePaymentLinkJob, {
    payload: { invoiceId },
    runAt: now,
    clientId,
  });
}
