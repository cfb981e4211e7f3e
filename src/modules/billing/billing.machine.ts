/**
 * The invoice status machine (named-areas.md section 9): the only place that decides which status
 * an invoice may move to. Terminal: paid, void. Transitions are persisted as compare-and-set updates
 * (invoices.transitions.ts) with their event, activity entry and notifications.
 */
import { badRequest } from '../../shared/errors';
import { BM } from './billing.messages';

export const INVOICE_STATUSES = ['draft', 'open', 'overdue', 'paid', 'uncollectible', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Every row of the spec's table, by trigger ((none) -> draft is the staff create). */
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

export function canApply(t: InvoiceTransition, from: InvoiceStatus): boolean {
  return (INVOICE_TRANSITIONS[t].from as readonly InvoiceStatus[]).includes(from);
}

export const targetOf = (t: InvoiceTransition): InvoiceStatus => INVOICE_TRANSITIONS[t].to;

/** The 400 every refused action gets. */
export function refuse(status: string): never {
  throw badRequest(BM.actionNotAllowed(status));
}

export function assertCanApply(t: InvoiceTransition, from: InvoiceStatus): InvoiceStatus {
  if (!canApply(t, from)) refuse(from);
  return targetOf(t);
}

export const isTerminal = (s: InvoiceStatus): boolean => s === 'paid' || s === 'void';
/** Drafts are edited and deleted by staff, and invisible to the client. */
export const isDraft = (s: InvoiceStatus): boolean => s === 'draft';
/** `reissue` makes a corrected draft from a void invoice. */
export const canReissue = (s: InvoiceStatus): boolean => s === 'void';
/** Statuses in which the invoice still waits for money. */
export const isCollectible = (s: InvoiceStatus): boolean =>
  s === 'open' || s === 'overdue' || s === 'uncollectible';
