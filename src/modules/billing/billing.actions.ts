/** An invoice's `allowed_actions` for the client, from the invoice machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { type InvoiceStatus, invoiceMachine } from './billing.machine';

export const invoiceActions = defineActions(invoiceMachine, (i: { status: InvoiceStatus }) => i.status, {
  simulate_payment: { permission: 'sandbox.simulate', triggers: ['payment_success'], sandboxOnly: true },
  simulate_overdue: { permission: 'sandbox.simulate', triggers: ['mark_overdue'], sandboxOnly: true },
});

export const InvoiceActionsSchema = allowedActionsSchema(invoiceActions, {
  simulate_payment:
    'POST /sandbox/billing/invoices/{invoice_id}/simulate with `pay` (sandbox; open, overdue or uncollectible)',
  simulate_overdue: 'POST /sandbox/billing/invoices/{invoice_id}/simulate with `overdue` (sandbox; open)',
});

export function withInvoiceActions<V extends { status: InvoiceStatus }>(view: V, viewer: ActionViewer) {
  return Object.assign(view, { allowed_actions: invoiceActions.of(view, viewer) });
}
