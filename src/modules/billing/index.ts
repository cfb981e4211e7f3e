/** Billing: price lists, usage and the platform's invoices to its clients. */
import { defineModule } from '../../platform/module';
import { periodicWorker } from '../../workers/loop';
import { markInvoicePaidOnPayment } from './billing.listeners';
import { billingRoutes } from './billing.routes';
import { markOverdueInvoices } from './billing.workers';
import { invoiceEmailJob } from './invoice-email';
import { invoicePaymentLinkJob } from './invoice-payment-link';

export const billingModule = defineModule({
  name: 'billing',
  api: [billingRoutes],
  jobs: [invoiceEmailJob, invoicePaymentLinkJob],
  subscriptions: [markInvoicePaidOnPayment],
  workers: (deps) => [
    // Open invoices past their due date become overdue.
    periodicWorker(deps, 'invoice-overdue-sweeper', 60_000, () => markOverdueInvoices(deps, 100)),
  ],
});
