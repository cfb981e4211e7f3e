/**
 * Every background worker of the service; server.ts starts them after listen and stops them on
 * shutdown. Work owed after a commit (emails, provider calls, sealing) and one-off timers are jobs,
 * run by the one jobs runner; what remains here are periodic scans of rows with a due time. Every
 * loop backs off while idle, up to a bound that is its worst added delay (docs/platform.md,
 * "Idle cost"): 1 s for jobs and webhooks, 2 s for work a merchant just asked for (workflow runs,
 * bulk uploads), 10 s for due-time sweeps; the minute and hour sweeps keep their period.
 */
import type { Deps } from '../deps';
import { purgeExpiredAuthRows } from '../modules/auth/auth-cleanup';
import { sweepApiKeyLockouts } from '../modules/auth/credentials.service';
import { markOverdueInvoices } from '../modules/billing/billing.workers';
import { runBulkWorker } from '../modules/bulk-links/bulk.worker';
import { runContractsWorker } from '../modules/contracts/contracts.worker';
import { jobDefinitions } from '../modules/index';
import { expireUnusedVerificationLinks } from '../modules/kyc/link-expiry.service';
import { reconcileVerifications } from '../modules/kyc/reconcile.service';
import { expireDueRemediations } from '../modules/monitoring/monitoring.reviews';
import { purgeOldActivityLogs, purgeOldNotifications } from '../modules/notifications/notifications.workers';
import { expireDuePayments } from '../modules/payments/payments.service';
import { createTokenioWorker } from '../modules/payments/tokenio.worker';
import { compactTransactionCounts } from '../modules/payments/transaction-counts';
import { runRecurringWorker } from '../modules/recurring/recurring.worker';
import { runSchedulesWorker } from '../modules/schedules/schedules.worker';
import { runScreeningWorker } from '../modules/screening/screening.worker';
import { autoCloseResolvedTickets } from '../modules/tickets/tickets.workers';
import { runTravelRuleWorker } from '../modules/travel-rule/travel-rule.worker';
import { processDueWorkflowRuns } from '../modules/workflows/workflows.engine';
import { createJobRunner, purgeFinishedJobs } from '../platform/jobs/index';
import { loopWorker, type Worker } from './loop';
import { createOpcoActivationWorker } from './opco-activation';
import { createPgliteAnalyzeWorker } from './pglite-analyze';
import { createWebhookDeliveryWorker } from './webhook-delivery';

/** Finished jobs are kept this long (staff can look at them), then purged. */
const JOB_RETENTION_DAYS = 7;
/** The longest idle wait of loops whose work a merchant or payer waits for. */
export const INTERACTIVE_IDLE_MAX_MS = 2_000;
/** The longest idle wait of due-time sweeps (an expiry or a retry is at most this late on an idle node). */
export const SWEEP_IDLE_MAX_MS = 10_000;

export function createWorkers(deps: Deps): Worker[] {
  const tokenio = createTokenioWorker(deps);
  const poll = deps.config.workerPollMs;
  const log = deps.log;
  /** A due-time sweep: polls every `base` ms while it finds work, backs off to `idleMax` when idle. */
  const sweep = (
    name: string,
    tick: () => Promise<number>,
    base = Math.max(poll, 1000),
    idleMax = SWEEP_IDLE_MAX_MS,
  ) => loopWorker(name, base, tick, log, { idleMaxMs: Math.max(base, idleMax) });
  /** A periodic scan with a fixed period (minutes or hours). */
  const every = (name: string, periodMs: number, tick: () => Promise<number>) =>
    loopWorker(name, periodMs, tick, log);
  /** Ticks that do their work whatever they find report 0, so the loop waits. */
  const quiet = (tick: () => Promise<unknown>) => async () => {
    await tick();
    return 0;
  };
  return [
    // Emails and provider calls owed after commits, sealing, timers (docs/platform.md, "Jobs").
    createJobRunner(deps, jobDefinitions, { pollMs: poll, idleMaxMs: Math.max(poll, 1000) }),
    every('jobs-retention', 3_600_000, () => purgeFinishedJobs(deps, JOB_RETENTION_DAYS)),
    // Token.io (SVC_BANK_PROVIDER=tokenio): payment reconciliation, Sub-TPP reviews, pending VRP consents.
    ...(tokenio ? [tokenio] : []),
    ...(deps.database.engine === 'pglite' ? [createPgliteAnalyzeWorker(deps)] : []),
    createWebhookDeliveryWorker(deps),
    createOpcoActivationWorker(deps),
    // Pending payment links past expires_at become expired (claimed with FOR UPDATE SKIP LOCKED, in batches).
    sweep('payment-expiry-sweeper', () => expireDuePayments(deps, 100)),
    // Unused verification links past expires_at expire; a subject left with nothing under way falls back from pending.
    sweep('verification-link-expiry-sweeper', () => expireUnusedVerificationLinks(deps, 100)),
    // Verification results a provider never notified are re-read after a bound (Sumsub only).
    ...(deps.providers.verification.reconciles
      ? [sweep('verification-reconciliation', () => reconcileVerifications(deps), Math.max(poll, 5000))]
      : []),
    // Workflow runs: claims due runs (FOR UPDATE SKIP LOCKED + lease) and executes their steps.
    sweep('workflow-engine', () => processDueWorkflowRuns(deps, 10), poll, INTERACTIVE_IDLE_MAX_MS),
    // Bulk payment links: preview expiry, queued jobs, row batches (leased, SKIP LOCKED), finishing, link cancels.
    sweep('bulk-paylinks', () => runBulkWorker(deps), poll, INTERACTIVE_IDLE_MAX_MS),
    // Payment schedules: links at issue_at (and re-issues), overdue at grace end, intent cancels.
    sweep('payment-schedules', () => runSchedulesWorker(deps), poll),
    // Folds the transaction count deltas (GET /transactions totals).
    sweep(
      'transaction-count-compactor',
      quiet(() => compactTransactionCounts(deps.db)),
      poll,
    ),
    // Recurring payments: due runs and retries, attempt launches, authorization/mandate expiry, resume, revocations.
    sweep('recurring-payments', () => runRecurringWorker(deps), poll),
    every('auth-cleanup', 60_000, () => purgeExpiredAuthRows(deps)),
    // Stale API-key failure counters (one statement per minute).
    every(
      'api-key-lockout-sweeper',
      60_000,
      quiet(() => sweepApiKeyLockouts(deps)),
    ),
    // Resolved tickets close after SVC_TICKET_AUTO_CLOSE_DAYS without a client message.
    every('ticket-auto-close', 60_000, () => autoCloseResolvedTickets(deps, 100)),
    // Open invoices past their due date become overdue.
    every('invoice-overdue-sweeper', 60_000, () => markOverdueInvoices(deps, 100)),
    // Monitoring remediations past their TTL move to the policy's on_remediation_expiry.
    every('monitoring-remediation-expiry', 60_000, () => expireDueRemediations(deps, 100)),
    // Wallet screening: monitored re-screens, ownership expiry, the sandbox provider's due notifications.
    sweep('wallet-screening', () => runScreeningWorker(deps)),
    // Travel rule: unanswered transfers expire; the sandbox network's due counterparty answers.
    sweep('travel-rule', () => runTravelRuleWorker(deps)),
    // Retention: read/archived notifications, and activity-log entries (the trigger's one exception).
    every('notification-retention', 3_600_000, () => purgeOldNotifications(deps)),
    every('activity-log-retention', 3_600_000, () => purgeOldActivityLogs(deps)),
    // Contracts: expiry, automatic reminders, the sandbox provider's auto-sign/decline.
    sweep('contracts', () => runContractsWorker(deps)),
  ];
}
