/** Billing: price lists, usage and the platform's invoices to its clients. */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { markInvoicePaidOnPayment } from './billing.listeners';
import { billingRoutes } from './billing.routes';
import { markOverdueInvoices, processDuePaymentLinks, sendDueInvoiceEmails } from './billing.workers';

export const billingModule = defineModule({
  name: 'billing',
  api: [billingRoutes],
  subscriptions: [markInvoicePaidOnPayment],
  workers: (deps) => [
    // Open invoices past their due date become overdue.
    loopWorker('invoice-overdue-sweeper', 60_000, () => markOverdueInvoices(deps, 100), deps.log),
    // Finalized invoices: the email with the PDF, and the payment link on the collection project.
    loopWorker(
      'invoice-email',
      Math.max(deps.config.workerPollMs, 1000),
      () => sendDueInvoiceEmails(deps, 10),
      deps.log,
    ),
    loopWorker(
      'invoice-payment-link',
      Math.max(deps.config.workerPollMs, 1000),
      () => processDuePaymentLinks(deps, 10),
      deps.log,
    ),
  ],
});
