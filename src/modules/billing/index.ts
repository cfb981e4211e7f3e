/** Billing: price lists, usage and the platform's invoices to its clients. */
import { defineModule } from '../../platform/module';
import { invoiceOverdueTimer } from './billing.jobs';
import { markInvoicePaidOnPayment } from './billing.listeners';
import { billingRoutes } from './billing.routes';
import { invoiceEmailJob } from './invoice-email.service';
import { invoicePaymentLinkJob } from './invoice-payment-link.service';

export const billingModule = defineModule({
  name: 'billing',
  api: [billingRoutes],
  jobs: [invoiceEmailJob, invoicePaymentLinkJob],
  // Open invoices past their due date become overdue.
  timers: [invoiceOverdueTimer],
  subscriptions: [markInvoicePaidOnPayment],
});
