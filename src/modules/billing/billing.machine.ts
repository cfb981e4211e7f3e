/**
 * The invoice status machine: the only place that decides which status an invoice may move to.
 * Terminal: paid, void. Moves are persisted by invoices.transitions.ts through the platform's
 * `transition` (docs/platform.md, "Status machines") with their event and notifications.
 */
import { INVOICE_STATUSES, type InvoiceStatus } from '../../db/schema/billing-invoices';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { BillingMessages } from './billing.messages';

export { INVOICE_STATUSES, type InvoiceStatus };

/** Every row of the invoice table, by trigger ((none) -> draft is the staff create). */
export const INVOICE_TRANSITIONS = {
  /** Staff finalize: number, PDF, email to billing_email. */
  finalize: { from: ['draft'], to: 'open' },
  /** due_date passes unpaid (the overdue sweeper, or the sandbox `overdue` simulation). */
  mark_overdue: { from: ['open'], to: 'overdue' },
  /** The linked payment link's transaction succeeded. */
  payment_success: { from: ['open', 'overdue', 'uncollectible'], to: 'paid' },
  /** Staff mark-paid (e.g. a bank transfer arrived). */
  mark_paid: { from: ['open', 'overdue', 'uncollectible'], to: 'paid' },
  mark_uncollectible: { from: ['open', 'overdue'], to: 'uncollectible' },
  /** Staff void (reason); the PDF keeps its number. */
  void: { from: ['open', 'overdue', 'uncollectible'], to: 'void' },
} as const satisfies Record<string, { from: readonly InvoiceStatus[]; to: InvoiceStatus }>;

export type InvoiceTransition = keyof typeof INVOICE_TRANSITIONS;

/** The 400 every refused action gets. */
export function refuse(status: string): never {
  throw badRequest(BillingMessages.actionNotAllowed(status));
}

export const invoiceMachine = defineMachine({
  name: 'invoice',
  statuses: INVOICE_STATUSES,
  transitions: INVOICE_TRANSITIONS,
  terminal: ['paid', 'void'],
  refused: (_t, from) => badRequest(BillingMessages.actionNotAllowed(from)),
});

export const canApply = invoiceMachine.can;
export const targetOf = (t: InvoiceTransition): InvoiceStatus => INVOICE_TRANSITIONS[t].to;
export const assertCanApply = invoiceMachine.assert;
export const isTerminal = invoiceMachine.isTerminal;
/** Drafts are edited and deleted by staff, and invisible to the client. */
export const isDraft = (s: InvoiceStatus): boolean => s === 'draft';
/** `reissue` makes a corrected draft from a void invoice. */
export const canReissue = (s: InvoiceStatus): boolean => s === 'void';
/** Statuses in which the invoice still waits for money. */
export const isCollectible = (s: InvoiceStatus): boolean =>
  s === 'open' || s === 'overdue' || s === 'uncollectible';
