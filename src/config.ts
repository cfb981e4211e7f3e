/**
 * Every environment variable the service reads, parsed and validated in one place.
 * `loadConfig` throws a ConfigError listing every bad value; the server prints it and exits.
 */
import path from 'node:path';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { type PrivateTargetAllowance, readAllowedPrivateTargets } from './outbox/ssrf';
import { round } from './platform/decimal';
import type { AnyProviderDefinition, ProviderSelection } from './providers/definition';
import { providerDefinitions, readProviderSelection } from './providers/registry';
import { readSanctionsConfig, type SanctionsConfig } from './providers/sanctions/config';
import { type Env, ConfigReader as Reader } from './shared/config-reader';
import { isUuid } from './shared/ids';
import { type PaymentLimits, readPaymentLimits } from './shared/payment-money';

export type Environment = 'sandbox' | 'production';

/** `paymentCurrencies` and `paymentMaxAmount` (SVC_PAYMENT_CURRENCIES, SVC_PAYMENT_MAX_AMOUNT) come from PaymentLimits. */
export interface Config extends PaymentLimits {
  port: number;
  host: string;
  environment: Environment;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  databasePoolSize: number;
  /**
   * Named prepared statements for the hot statements (false behind a transaction-mode pooler that
   * does not track them, such as PgBouncer before 1.21).
   */
  databasePreparedStatements: boolean;
  smtpUrl: string | null;
  /**
   * SVC_LOCAL_MAIL: mail goes to the log and $SVC_DATA_DIR/mail/ even in production (no mail server),
   * for a local production rehearsal only; never for a real deployment (nobody receives the codes).
   */
  localMail: boolean;
  mailFrom: string;
  logLevel: string;
  registrationEnabled: boolean;
  sandboxOpcoActivationSeconds: number;
  webhookBackoffSeconds: number[];
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  /** Max requests in flight per target URL per process (fairness); null = a quarter of webhookConcurrency. */
  webhookPerUrlConcurrency: number | null;
  webhookMaxResponseBytes: number;
  /** Production: private webhook targets the operator allows (SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS); null: none. */
  webhookAllowedPrivateTargets: PrivateTargetAllowance | null;
  /** Idle poll of the webhook delivery worker: bounds the wait from a new event to its first attempt. */
  webhookPollMs: number;
  refreshCooldownSeconds: number;
  /** Sandbox bank: authorization window of a bank session once the payer picked a bank. */
  bankSessionTtlSeconds: number;
  /** Lifetime of a KYC/KYB verification link. */
  verificationLinkTtlSeconds: number;
  /** Abandoned idempotency claims (a crashed request) are reclaimable after this many seconds. */
  idempotencyStaleSeconds: number;
  /** Deadline of a workflow `http` step (connect + response headers). */
  workflowHttpTimeoutMs: number;
  bootstrapStaffEmail: string | null;
  bootstrapStaffPassword: string | null;
  /** HMAC key for access tokens; null means "generate/keep one in dataDir" (embedded default only). */
  jwtSecret: string | null;
  /** 32-byte key (base64) encrypting data at rest; null means "generate/keep one in dataDir". */
  dataKey: string | null;
  /** Shared secret the sandbox bank/verification simulators sign their notifications with. */
  providerWebhookSecret: string | null;
  workersEnabled: boolean;
  /** PostgreSQL: partition the append-only history tables by month and keep partitions ahead. */
  historyPartitions: boolean;
  workerPollMs: number;
  /** PGlite only (no autovacuum there): seconds between the maintenance worker's ANALYZE runs. */
  pgliteAnalyzeSeconds: number;
  shutdownTimeoutSeconds: number;
  /** After SIGTERM, how long readiness answers 503 while requests are still served, before the listener closes. */
  shutdownDrainSeconds: number;
  apiTokenTtlSeconds: number;
  trustProxy: boolean;
  /** Support tickets: resolved tickets close after this many days without a client message. */
  ticketAutoCloseDays: number;
  /** Notifications: read or archived notifications older than this many days are deleted. */
  notificationRetentionDays: number;
  /** Activity logs: entries older than this many days are deleted by the retention job. */
  activityLogRetentionDays: number;
  /** Support tickets: a closed ticket can be reopened within this many days of closed_at. */
  ticketReopenWindowDays: number;
  /** Support tickets: largest attachment (decoded bytes). */
  ticketMaxAttachmentBytes: number;
  /** Billing: invoice number prefix (`{prefix}-{YYYY}-{000001}`). */
  billingInvoicePrefix: string;
  /** Billing: default days from finalization to the due date. */
  billingDefaultDueDays: number;
  /** Billing: the platform-owned project invoice payment links are created on; null = bank transfer only. */
  billingCollectionProjectId: string | null;
  /** Billing: bank-transfer instructions printed on invoices (required in production). */
  billingPayeeName: string | null;
  billingPayeeIban: string | null;
  billingPayeeBic: string | null;
  /** Contracts: e-signing adapter (SVC_ESIGN_PROVIDER: `simulator` or `none`). */
  esignProvider: string;
  /** Contracts: largest PDF for templates and ad hoc documents (decoded bytes). */
  contractMaxDocumentBytes: number;
  /** Contracts: minimum gap between two reminders to one participant. */
  contractReminderMinIntervalSeconds: number;
  /** Contracts (sandbox): delay for `+autosign` / `+autodecline` participants. */
  sandboxEsignAutoSeconds: number;
  /** Bulk payment links: largest CSV/XLSX upload (decoded bytes). */
  bulkPaylinkMaxFileBytes: number;
  /** Bulk payment links: rows recorded per worker transaction. */
  bulkPaylinkBatchSize: number;
  /** Bulk payment links: how long a preview waits for confirmation. */
  bulkPreviewTtlHours: number;
  /** Payment schedules: default days before the due date that a link is issued. */
  scheduleIssueDaysBefore: number;
  /** Payment schedules: default days after the due date before an instalment is overdue. */
  scheduleGraceDays: number;
  /** Payment schedules: payment links per instalment in all (first, automatic re-issues and reissues). */
  scheduleMaxLinksPerInstalment: number;
  /** Wallet screening: adapter (`simulator`, or `none`: 503 `Screening provider is not configured`). */
  screeningProvider: string;
  /** Wallet screening: wait inside POST /screening/wallet before answering `pending`. */
  screeningSyncTimeoutMs: number;
  /** Monitoring reuses a completed counterparty wallet screening younger than this; 0 screens every time. */
  monitoringWalletMaxAgeSeconds: number;
  /** Largest document a customer may upload with a source_of_funds remediation. */
  remediationMaxDocumentBytes: number;
  /** Wallet screening: re-screen interval of monitored wallets. */
  screeningRescreenHours: number;
  /** Sandbox: delay before the `5555` screening completes through the signed route. */
  sandboxScreeningDelaySeconds: number;
  /** Travel rule: network adapter (`simulator`, or `none`: 503 `Travel-rule network provider is not configured`). */
  travelRuleProvider: string;
  /** Travel rule: default threshold of new clients' settings (amount and ISO 4217 currency). */
  travelRuleDefaultThreshold: { amount: string; currency: string };
  /** Travel rule: counterparty answer window before a transfer expires. */
  travelRuleResponseTimeoutHours: number;
  /** Sandbox: delay before a sandbox VASP answers. */
  sandboxTravelRuleDelaySeconds: number;
  /** Wallet ownership: default lifetime of a request. */
  walletOwnershipTtlSeconds: number;
  /** Wallet ownership: signature attempts per request. */
  walletOwnershipMaxAttempts: number;
  /** Recurring payments: lifetime of a mandate authorization link. */
  mandateAuthorizationTtlSeconds: number;
  /** Recurring payments: default automatic retry delays in hours (at most 5). */
  recurringRetryHours: number[];
  /** Recurring payments: attempts per run, automatic and manual together. */
  recurringMaxAttempts: number;
  /** Sandbox bank: mandate-payment settlement delay. */
  sandboxBankSettleSeconds: number;
  /** Sandbox bank: delay before a refund settles (succeeds, or fails by its magic amount). */
  sandboxRefundSettleSeconds: number;
  /** Refunds: how often a processing refund is read again at the network (the reconciliation sweep). */
  refundReconcileSeconds: number;
  /** Refunds held for manual review are read again this often (the slow cadence). */
  refundReviewReconcileSeconds: number;
  /** Payment network (SVC_BANK_PROVIDER): a bank provider's name (sandbox default `simulator`), or `none` (production default: creation answers 503). */
  bankProvider: string;
  /** KYC/KYB (SVC_VERIFICATION_PROVIDER): a verification provider's name, or `none` (links fail with 500). */
  verificationProvider: string;
  /**
   * The provider chosen for each kind, with its own settings as its definition read them
   * (src/providers/registry.ts lists the definitions; the vendors' settings are read there, not here).
   */
  providers: ProviderSelection;
  /** Sanctions name screening: the lists (SVC_SANCTIONS_LISTS) and their sources, schedule and threshold. */
  sanctions: SanctionsConfig;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Billing values a plain type check cannot vouch for: prefix shape, collection project id, IBAN and BIC. */
function checkBillingConfig(config: Config, problems: string[]): void {
  if (!/^[A-Z0-9]{1,12}$/.test(config.billingInvoicePrefix))
    problems.push(
      `SVC_BILLING_INVOICE_PREFIX must be 1-12 uppercase letters or digits (got "${config.billingInvoicePrefix}")`,
    );
  if (config.billingCollectionProjectId !== null && !isUuid(config.billingCollectionProjectId))
    problems.push('SVC_BILLING_COLLECTION_PROJECT_ID must be a project id (UUID)');
  if (config.billingPayeeIban !== null) {
    config.billingPayeeIban = electronicFormatIBAN(config.billingPayeeIban) ?? config.billingPayeeIban;
    if (!isValidIBAN(config.billingPayeeIban)) problems.push('SVC_BILLING_PAYEE_IBAN must be a valid IBAN');
  }
  if (config.billingPayeeBic !== null && !isValidBIC(config.billingPayeeBic))
    problems.push('SVC_BILLING_PAYEE_BIC must be a valid BIC');
}

export const DEFAULT_WEBHOOK_BACKOFF = [0, 10, 20, 40, 80, 160, 320, 640];
/** Delivery is bound by receivers' latency, not CPU: 16 slots drained a backlog at half the rate of 64. */
export const DEFAULT_WEBHOOK_CONCURRENCY = 64;

/** Test apps and tools may list provider definitions beside the registry's (e.g. a fake bank). */
export interface LoadConfigOptions {
  providers?: readonly AnyProviderDefinition[];
}

export function loadConfig(env: Env = process.env, options: LoadConfigOptions = {}): Config {
  const r = new Reader(env);
  const port = r.int('PORT', 8000, 0, 65535);
  const environment = r.oneOf('SVC_ENVIRONMENT', ['sandbox', 'production'] as const, 'sandbox');
  const databaseUrl = r.url('DATABASE_URL', null, ['postgres:', 'postgresql:']);
  const providers = readProviderSelection(r, environment, [
    ...providerDefinitions,
    ...(options.providers ?? []),
  ]);
  const config: Config = {
    port,
    host: r.string('HOST', '0.0.0.0'),
    environment,
    publicUrl: r.url('SVC_PUBLIC_URL', `http://localhost:${port}`, ['http:', 'https:'])!,
    dataDir: path.resolve(r.string('SVC_DATA_DIR', './data')),
    databaseUrl,
    databasePoolSize: r.int('DATABASE_POOL_SIZE', 10, 1, 200),
    databasePreparedStatements: r.bool('DATABASE_PREPARED_STATEMENTS', true),
    smtpUrl: r.url('SMTP_URL', null, ['smtp:', 'smtps:']),
    localMail: r.bool('SVC_LOCAL_MAIL', false),
    mailFrom: r.string('SVC_MAIL_FROM', 'Payments Platform <no-reply@localhost>'),
    logLevel: r.oneOf(
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    registrationEnabled: r.bool('SVC_REGISTRATION_ENABLED', true),
    sandboxOpcoActivationSeconds: r.int('SVC_SANDBOX_OPCO_ACTIVATION_SECONDS', 10, 0, 86400 * 30),
    webhookBackoffSeconds: r.seconds('SVC_WEBHOOK_BACKOFF_SECONDS', DEFAULT_WEBHOOK_BACKOFF),
    webhookTimeoutMs: r.int('SVC_WEBHOOK_TIMEOUT_MS', 5000, 100, 60000),
    webhookConcurrency: r.int('SVC_WEBHOOK_CONCURRENCY', DEFAULT_WEBHOOK_CONCURRENCY, 1, 1000),
    webhookPerUrlConcurrency: r.raw('SVC_WEBHOOK_PER_URL_CONCURRENCY')
      ? r.int('SVC_WEBHOOK_PER_URL_CONCURRENCY', 4, 1, 1000)
      : null,
    webhookMaxResponseBytes: r.int('SVC_WEBHOOK_MAX_RESPONSE_BYTES', 64 * 1024, 0, 10 * 1024 * 1024),
    webhookAllowedPrivateTargets: readAllowedPrivateTargets(
      r.raw('SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS'),
      r.problems,
    ),
    webhookPollMs: r.int(
      'SVC_WEBHOOK_POLL_MS',
      Math.min(100, r.int('SVC_WORKER_POLL_MS', 500, 10, 60000)),
      10,
      60000,
    ),
    refreshCooldownSeconds: r.int('SVC_REFRESH_COOLDOWN_SECONDS', 10, 0, 3600),
    bankSessionTtlSeconds: r.int('SVC_BANK_SESSION_TTL_SECONDS', 900, 30, 86400),
    verificationLinkTtlSeconds: r.int('SVC_VERIFICATION_LINK_TTL_SECONDS', 604800, 60, 90 * 86400),
    idempotencyStaleSeconds: r.int('SVC_IDEMPOTENCY_STALE_SECONDS', 120, 10, 86400),
    workflowHttpTimeoutMs: r.int('SVC_WORKFLOW_HTTP_TIMEOUT_MS', 10000, 100, 60000),
    bootstrapStaffEmail: r.optional('SVC_BOOTSTRAP_STAFF_EMAIL'),
    bootstrapStaffPassword: r.optional('SVC_BOOTSTRAP_STAFF_PASSWORD'),
    jwtSecret: r.optional('SVC_JWT_SECRET'),
    dataKey: r.optional('SVC_DATA_KEY'),
    providerWebhookSecret: r.optional('SVC_PROVIDER_WEBHOOK_SECRET'),
    workersEnabled: r.bool('SVC_WORKERS_ENABLED', true),
    historyPartitions: r.bool('SVC_HISTORY_PARTITIONS', false),
    workerPollMs: r.int('SVC_WORKER_POLL_MS', 500, 10, 60000),
    pgliteAnalyzeSeconds: r.int('SVC_PGLITE_ANALYZE_SECONDS', 300, 5, 86400),
    shutdownTimeoutSeconds: r.int('SVC_SHUTDOWN_TIMEOUT_SECONDS', 25, 1, 600),
    shutdownDrainSeconds: r.int('SVC_SHUTDOWN_DRAIN_SECONDS', 5, 0, 300),
    apiTokenTtlSeconds: r.int('SVC_API_TOKEN_TTL_SECONDS', 7 * 86400, 60, 7 * 86400),
    trustProxy: r.bool('SVC_TRUST_PROXY', false),
    ticketAutoCloseDays: r.int('SVC_TICKET_AUTO_CLOSE_DAYS', 7, 0, 3650),
    notificationRetentionDays: r.int('SVC_NOTIFICATION_RETENTION_DAYS', 90, 1, 3650),
    activityLogRetentionDays: r.int('SVC_ACTIVITY_LOG_RETENTION_DAYS', 365, 1, 36500),
    ticketReopenWindowDays: r.int('SVC_TICKET_REOPEN_WINDOW_DAYS', 30, 0, 3650),
    ticketMaxAttachmentBytes: r.int('SVC_TICKET_MAX_ATTACHMENT_BYTES', 10 * 1024 * 1024, 1, 50 * 1024 * 1024),
    billingInvoicePrefix: r.string('SVC_BILLING_INVOICE_PREFIX', 'INV'),
    billingDefaultDueDays: r.int('SVC_BILLING_DEFAULT_DUE_DAYS', 14, 0, 365),
    billingCollectionProjectId: r.optional('SVC_BILLING_COLLECTION_PROJECT_ID'),
    billingPayeeName: r.optional('SVC_BILLING_PAYEE_NAME'),
    billingPayeeIban: r.optional('SVC_BILLING_PAYEE_IBAN'),
    billingPayeeBic: r.optional('SVC_BILLING_PAYEE_BIC'),
    esignProvider: providers.esign.name,
    contractMaxDocumentBytes: r.int('SVC_CONTRACT_MAX_DOCUMENT_BYTES', 10485760, 1024, 100 * 1024 * 1024),
    contractReminderMinIntervalSeconds: r.int(
      'SVC_CONTRACT_REMINDER_MIN_INTERVAL_SECONDS',
      3600,
      0,
      30 * 86400,
    ),
    sandboxEsignAutoSeconds: r.int('SVC_SANDBOX_ESIGN_AUTO_SECONDS', 5, 0, 86400),
    bulkPaylinkMaxFileBytes: r.int('SVC_BULK_PAYLINK_MAX_FILE_BYTES', 5242880, 1024, 50 * 1024 * 1024),
    bulkPaylinkBatchSize: r.int('SVC_BULK_PAYLINK_BATCH_SIZE', 50, 1, 500),
    bulkPreviewTtlHours: r.int('SVC_BULK_PREVIEW_TTL_HOURS', 24, 1, 24 * 30),
    scheduleIssueDaysBefore: r.int('SVC_SCHEDULE_ISSUE_DAYS_BEFORE', 3, 0, 30),
    scheduleGraceDays: r.int('SVC_SCHEDULE_GRACE_DAYS', 7, 0, 60),
    scheduleMaxLinksPerInstalment: r.int('SVC_SCHEDULE_MAX_LINKS_PER_INSTALMENT', 3, 1, 100),
    screeningProvider: providers.screening.name,
    screeningSyncTimeoutMs: r.int('SVC_SCREENING_SYNC_TIMEOUT_MS', 5000, 0, 60000),
    monitoringWalletMaxAgeSeconds: r.int('SVC_MONITORING_WALLET_MAX_AGE_SECONDS', 86400, 0, 604800),
    remediationMaxDocumentBytes: r.int(
      'SVC_REMEDIATION_MAX_DOCUMENT_BYTES',
      10 * 1024 * 1024,
      1,
      50 * 1024 * 1024,
    ),
    screeningRescreenHours: r.int('SVC_SCREENING_RESCREEN_HOURS', 24, 1, 24 * 365),
    sandboxScreeningDelaySeconds: r.int('SVC_SANDBOX_SCREENING_DELAY_SECONDS', 5, 0, 86400),
    walletOwnershipTtlSeconds: r.int('SVC_WALLET_OWNERSHIP_TTL_SECONDS', 86400, 300, 604800),
    walletOwnershipMaxAttempts: r.int('SVC_WALLET_OWNERSHIP_MAX_ATTEMPTS', 5, 1, 100),
    travelRuleProvider: providers['travel-rule'].name,
    travelRuleDefaultThreshold: parseThreshold(
      r,
      r.string('SVC_TRAVEL_RULE_DEFAULT_THRESHOLD', '1000.00 EUR'),
    ),
    travelRuleResponseTimeoutHours: r.int('SVC_TRAVEL_RULE_RESPONSE_TIMEOUT_HOURS', 48, 1, 24 * 30),
    sandboxTravelRuleDelaySeconds: r.int('SVC_SANDBOX_TRAVEL_RULE_DELAY_SECONDS', 2, 0, 86400),
    mandateAuthorizationTtlSeconds: r.int('SVC_MANDATE_AUTHORIZATION_TTL_SECONDS', 86400, 60, 30 * 86400),
    recurringRetryHours: r.hours('SVC_RECURRING_RETRY_HOURS', [24, 72]),
    recurringMaxAttempts: r.int('SVC_RECURRING_MAX_ATTEMPTS', 10, 1, 100),
    sandboxBankSettleSeconds: r.int('SVC_SANDBOX_BANK_SETTLE_SECONDS', 2, 0, 86400),
    sandboxRefundSettleSeconds: r.int('SVC_SANDBOX_REFUND_SETTLE_SECONDS', 5, 0, 86400),
    refundReconcileSeconds: r.int('SVC_REFUND_RECONCILE_SECONDS', 600, 5, 86400),
    refundReviewReconcileSeconds: r.int('SVC_REFUND_REVIEW_RECONCILE_SECONDS', 21600, 60, 7 * 86400),
    bankProvider: providers.bank.name,
    verificationProvider: providers.verification.name,
    providers,
    sanctions: readSanctionsConfig(r, environment),
    ...readPaymentLimits(r.raw('SVC_PAYMENT_CURRENCIES'), r.raw('SVC_PAYMENT_MAX_AMOUNT'), r.problems),
  };
  if ((config.bootstrapStaffEmail === null) !== (config.bootstrapStaffPassword === null)) {
    r.problems.push('SVC_BOOTSTRAP_STAFF_EMAIL and SVC_BOOTSTRAP_STAFF_PASSWORD must be set together');
  }
  if (config.bootstrapStaffPassword !== null && config.bootstrapStaffPassword.length < 8) {
    r.problems.push('SVC_BOOTSTRAP_STAFF_PASSWORD must be at least 8 characters');
  }
  if (config.jwtSecret !== null && config.jwtSecret.length < 32) {
    r.problems.push('SVC_JWT_SECRET must be at least 32 characters');
  }
  if (config.dataKey !== null && Buffer.from(config.dataKey, 'base64').length !== 32) {
    r.problems.push('SVC_DATA_KEY must be 32 bytes encoded as base64');
  }
  checkBillingConfig(config, r.problems);
  if (environment === 'production') {
    if (!databaseUrl)
      r.problems.push('DATABASE_URL is required in production (the embedded database is for development)');
    if (!config.jwtSecret) r.problems.push('SVC_JWT_SECRET is required in production');
    if (!config.dataKey) r.problems.push('SVC_DATA_KEY is required in production');
    if (!config.smtpUrl && !config.localMail)
      r.problems.push(
        'SMTP_URL is required in production (SVC_LOCAL_MAIL=true writes mail to the data directory instead, for a local try only)',
      );
    if (config.smtpUrl && config.localMail)
      r.problems.push('SVC_LOCAL_MAIL=true and SMTP_URL exclude each other: choose one');
    for (const [name, value] of [
      ['SVC_BILLING_PAYEE_NAME', config.billingPayeeName],
      ['SVC_BILLING_PAYEE_IBAN', config.billingPayeeIban],
      ['SVC_BILLING_PAYEE_BIC', config.billingPayeeBic],
    ] as const) {
      if (!value)
        r.problems.push(`${name} is required in production (bank-transfer instructions on invoices)`);
    }
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** `SVC_TRAVEL_RULE_DEFAULT_THRESHOLD`: "<amount with at most 2 decimals> <ISO 4217>", e.g. `1000.00 EUR`. */
function parseThreshold(r: { problems: string[] }, raw: string): { amount: string; currency: string } {
  const m = /^\s*(\d{1,13}(?:\.\d{1,2})?)\s+([A-Z]{3})\s*$/.exec(raw);
  if (!m) {
    r.problems.push('SVC_TRAVEL_RULE_DEFAULT_THRESHOLD must look like "1000.00 EUR"');
    return { amount: '1000.00', currency: 'EUR' };
  }
  return { amount: round(m[1]!, 2, 'exact'), currency: m[2]! };
}
