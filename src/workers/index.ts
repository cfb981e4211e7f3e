/** Every background worker of the service; server.ts starts them after listen and stops them on shutdown. */
import type { Deps } from '../deps';
import { purgeExpiredAuthRows } from '../modules/auth/auth-cleanup';
import { sweepApiKeyLockouts } from '../modules/auth/credentials.service';
import {
  markOverdueInvoices,
  processDuePaymentLinks,
  sendDueInvoiceEmails,
} from '../modules/billing/billing.workers';
import { runBulkWorker } from '../modules/bulk-links/bulk.worker';
import { runContractsWorker } from '../modules/contracts/contracts.worker';
import { jobDefinitions } from '../modules/index';
import { expireUnusedVerificationLinks } from '../modules/kyc/link-expiry.service';
import { reconcileVerifications } from '../modules/kyc/reconcile.service';
import { expireDueRemediations } from '../modules/monitoring/monitoring.reviews';
import {
  purgeOldActivityLogs,
  purgeOldNotifications,
  sendDueNotificationEmails,
} from '../modules/notifications/notifications.workers';
import { expireDuePayments } from '../modules/payments/payments.service';
import { createTokenioWorker } from '../modules/payments/tokenio.worker';
import { compactTransactionCounts } from '../modules/payments/transaction-counts';
import { runRecurringWorker } from '../modules/recurring/recurring.worker';
import { runSchedulesWorker } from '../modules/schedules/schedules.worker';
import { runScreeningWorker } from '../modules/screening/screening.worker';
import { autoCloseResolvedTickets, sendDueTicketEmails } from '../modules/tickets/tickets.workers';
import { runTravelRuleWorker } from '../modules/travel-rule/travel-rule.worker';
import { processDueWorkflowRuns } from '../modules/workflows/workflows.engine';
import { createJobRunner, purgeFinishedJobs } from '../platform/jobs/index';
import { loopWorker, type Worker } from './loop';
import { createOpcoActivationWorker } from './opco-activation';
import { createPgliteAnalyzeWorker } from './pglite-analyze';
import { createWebhookDeliveryWorker } from './webhook-delivery';

/** Finished jobs are kept this long (staff can look at them), then purged. */
const JOB_RETENTION_DAYS = 7;

export function createWorkers(deps: Deps): Worker[] {
  const tokenio = createTokenioWorker(deps);
  return [
    // Work owed after commits (emails, provider calls, sealing) and timers: one claim statement per idle tick.
    createJobRunner(deps, jobDefinitions, { pollMs: deps.config.workerPollMs }),
    loopWorker('jobs-retention', 3_600_000, () => purgeFinishedJobs(deps, JOB_RETENTION_DAYS), deps.log),
    // Token.io (SVC_BANK_PROVIDER=tokenio): payment reconciliation, Sub-TPP reviews, pending VRP consents.
    ...(tokenio ? [tokenio] : []),
    ...(deps.database.engine === 'pglite' ? [createPgliteAnalyzeWorker(deps)] : []),
    createWebhookDeliveryWorker(deps),
    createOpcoActivationWorker(deps),
    // Pending payment links past expires_at become expired (claimed with FOR UPDATE SKIP LOCKED, in batches).
    loopWorker(
      'payment-expiry-sweeper',
      Math.max(deps.config.workerPollMs, 1000),
      () => expireDuePayments(deps, 100),
      deps.log,
    ),
    // Unused verification links past expires_at expire; a subject left with nothing under way falls back from pending.
    loopWorker(
      'verification-link-expiry-sweeper',
      Math.max(deps.config.workerPollMs, 1000),
      () => expireUnusedVerificationLinks(deps, 100),
      deps.log,
    ),
    // Verification results a provider never notified are re-read after a bound (Sumsub only).
    ...(deps.providers.verification.reconciles
      ? [
          loopWorker(
            'verification-reconciliation',
            Math.max(deps.config.workerPollMs, 5000),
            () => reconcileVerifications(deps),
            deps.log,
          ),
        ]
      : []),
    // Workflow runs: claims due runs (FOR UPDATE SKIP LOCKED + lease) and executes their steps.
    loopWorker('workflow-engine', deps.config.workerPollMs, () => processDueWorkflowRuns(deps, 10), deps.log),
    // Bulk payment links: preview expiry, queued jobs, row batches (leased, SKIP LOCKED), finishing, link cancels.
    loopWorker('bulk-paylinks', deps.config.workerPollMs, () => runBulkWorker(deps), deps.log),
    // Payment schedules: links at issue_at (and re-issues), overdue at grace end, intent cancels, payer emails.
    loopWorker('payment-schedules', deps.config.workerPollMs, () => runSchedulesWorker(deps), deps.log),
    // Folds the transaction count deltas (GET /transactions totals); returns 0 so it polls, never spins.
    loopWorker(
      'transaction-count-compactor',
      deps.config.workerPollMs,
      async () => {
        await compactTransactionCounts(deps.db);
        return 0;
      },
      deps.log,
    ),
    // Recurring payments: due runs and retries, attempt launches, authorization/mandate expiry, resume, revocations.
    loopWorker('recurring-payments', deps.config.workerPollMs, () => runRecurringWorker(deps), deps.log),
    loopWorker('auth-cleanup', 60_000, () => purgeExpiredAuthRows(deps), deps.log),
    // Stale API-key failure counters (one statement per minute; returns 0 so it never spins).
    loopWorker(
      'api-key-lockout-sweeper',
      60_000,
      async () => {
        await sweepApiKeyLockouts(deps);
        return 0;
      },
      deps.log,
    ),
    // Resolved tickets close after SVC_TICKET_AUTO_CLOSE_DAYS without a client message.
    loopWorker('ticket-auto-close', 60_000, () => autoCloseResolvedTickets(deps, 100), deps.log),
    // Emails owed for staff ticket replies (one row per recipient, retried with backoff).
    loopWorker(
      'ticket-email',
      Math.max(deps.config.workerPollMs, 1000),
      () => sendDueTicketEmails(deps, 20),
      deps.log,
    ),
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
    // Monitoring remediations past their TTL move to the policy's on_remediation_expiry.
    loopWorker('monitoring-remediation-expiry', 60_000, () => expireDueRemediations(deps, 100), deps.log),
    // Wallet screening: monitored re-screens, ownership expiry, the sandbox provider's due notifications.
    loopWorker(
      'wallet-screening',
      Math.max(deps.config.workerPollMs, 1000),
      () => runScreeningWorker(deps),
      deps.log,
    ),
    // Travel rule: unanswered transfers expire; the sandbox network's due counterparty answers.
    loopWorker(
      'travel-rule',
      Math.max(deps.config.workerPollMs, 1000),
      () => runTravelRuleWorker(deps),
      deps.log,
    ),
    // Notification emails by preference (pending rows claimed with SKIP LOCKED and a lease).
    loopWorker(
      'notification-email',
      Math.max(deps.config.workerPollMs, 1000),
      () => sendDueNotificationEmails(deps, 20),
      deps.log,
    ),
    // Retention: read/archived notifications, and activity-log entries (the trigger's one exception).
    loopWorker('notification-retention', 3_600_000, () => purgeOldNotifications(deps), deps.log),
    loopWorker('activity-log-retention', 3_600_000, () => purgeOldActivityLogs(deps), deps.log),
    // Contracts: expiry, automatic reminders, pending envelopes, owed payment links, sandbox auto-sign/decline.
    loopWorker(
      'contracts',
      Math.max(deps.config.workerPollMs, 1000),
      () => runContractsWorker(deps),
      deps.log,
    ),
  ];
}
