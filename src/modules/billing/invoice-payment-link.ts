/**
 * The invoice's payment link on the platform's collection project (SVC_BILLING_COLLECTION_PROJECT_ID):
 * created through the one paylink use case with key `invoice:<invoice_id>` and origin
 * `{type: 'invoice', id}`, outside any database transaction. The intent is on the invoice row
 * (payment_link_state `pending` with a due time); a failure is recorded there and retried with backoff
 * by the billing worker, and the idempotency key makes a retry after a crash return the same link.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { retryDelaySeconds } from '../../shared/retry-schedule';
import { findOrCreateBusiness } from '../customers/customers.service';
import { createPlatformPaymentLink } from '../payments/paylink.service';
import { checkoutUrl } from '../payments/payments.service';
import { AUTOMATIC } from '../payments/status.service';
import { isCollectible } from './billing.machine';
import { claimDueInvoiceWork, type InvoiceRow, updateInvoice } from './billing.repo';

export const PAYMENT_LINK_MAX_ATTEMPTS = 6;
const LEASE_SECONDS = 300;

export const invoicePaymentLinkDue = (i: InvoiceRow) => i.paymentLinkState === 'pending';

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

/** Creates the payment link of one claimed invoice; records the outcome on the invoice. */
async function createClaimedLink(deps: Deps, inv: InvoiceRow): Promise<void> {
  const now = () => deps.clock.now();
  // The email that waited for the link goes now, with or without it.
  const releaseEmail = inv.emailState === 'waiting' ? { emailState: 'pending', emailNextAt: now() } : {};
  if (!isCollectible(inv.status)) {
    await updateInvoice(deps.db, inv.id, {
      paymentLinkState: 'none',
      paymentLinkNextAt: null,
      ...releaseEmail,
    });
    return;
  }
  try {
    const { transaction } = await createLink(deps, inv);
    await updateInvoice(deps.db, inv.id, {
      paymentLinkState: 'created',
      paymentLinkNextAt: null,
      paymentLinkError: null,
      transactionId: transaction.id,
      paymentUrl: checkoutUrl(deps, transaction),
      ...releaseEmail,
    });
  } catch (err) {
    const message = err instanceof AppError ? err.detail : err instanceof Error ? err.message : String(err);
    const giveUp = inv.paymentLinkAttempts >= PAYMENT_LINK_MAX_ATTEMPTS;
    deps.log.warn(
      { err: message, invoiceId: inv.id, attempts: inv.paymentLinkAttempts, giveUp },
      'invoice payment link failed',
    );
    await updateInvoice(deps.db, inv.id, {
      paymentLinkState: giveUp ? 'failed' : 'pending',
      paymentLinkError: message.slice(0, 500),
      paymentLinkNextAt: giveUp ? null : addSeconds(now(), retryDelaySeconds(inv.paymentLinkAttempts)),
      // The invoice (PDF, bank details) is not held back by a failing link.
      ...releaseEmail,
    });
  }
}

/** Right after finalization: claim this invoice's link work (unless a worker has it) and do it. */
export async function processInvoicePaymentLink(deps: Deps, invoiceId: string): Promise<void> {
  const now = deps.clock.now();
  const [inv] = await claimDueInvoiceWork(
    deps.db,
    'payment_link',
    now,
    addSeconds(now, LEASE_SECONDS),
    1,
    invoiceId,
  );
  if (inv) await createClaimedLink(deps, inv);
}

/** The billing worker: due payment links (first tries that crashed, and retries). */
export async function processDuePaymentLinks(deps: Deps, limit = 10): Promise<number> {
  const now = deps.clock.now();
  const due = await claimDueInvoiceWork(deps.db, 'payment_link', now, addSeconds(now, LEASE_SECONDS), limit);
  for (const inv of due) await createClaimedLink(deps, inv);
  return due.length;
}
