/**
 * Builds the real app over an isolated test database, with a manual clock and an in-memory
 * mailer by default. Call `inject` for most tests; `listen()` gives a real port when needed.
 */

import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app';
import { assembleDeps } from '../../src/compose';
import { type Config, loadConfig } from '../../src/config';
import type { Database } from '../../src/db/client';
import type { Deps, Providers } from '../../src/deps';
import type { AppSubscription } from '../../src/platform/module';
import type { Mailer, MailMessage } from '../../src/providers/mail/port';
import { ManualClock } from '../../src/shared/clock';
import { deriveSecrets } from '../../src/shared/crypto';
import { leaseTestDatabase } from './db';
import { captureLogger, harvestMailText, harvestSecrets } from './log-capture';
import { learnDocument, recordStatuses } from './status-recorder';

export class MemoryMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  failNext = 0;
  async send(m: MailMessage) {
    if (this.failNext > 0) {
      this.failNext--;
      const { MailDeliveryError } = await import('../../src/providers/mail/port');
      throw new MailDeliveryError(new Error('simulated failure'));
    }
    harvestMailText(`${m.text}\n${m.html ?? ''}`);
    this.sent.push(m);
  }
  lastTo(to: string): MailMessage | undefined {
    return [...this.sent].reverse().find((m) => m.to.toLowerCase() === to.toLowerCase());
  }
}

/**
 * A production deployment's environment. Production config demands a database URL, secrets and
 * SMTP; the test database itself is injected by the fixture, so the URL is never dialled.
 */
/** Bank-transfer instructions every production deployment must configure for invoices. */
export const PRODUCTION_PAYEE_ENV: Readonly<Record<string, string>> = {
  SVC_BILLING_PAYEE_NAME: 'Payments Platform Ltd',
  SVC_BILLING_PAYEE_IBAN: 'GB33BUKB20201555555555',
  SVC_BILLING_PAYEE_BIC: 'BUKBGB22',
};

export const PRODUCTION_ENV: Readonly<Record<string, string>> = {
  ...PRODUCTION_PAYEE_ENV,
  SVC_ENVIRONMENT: 'production',
  DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
  SVC_JWT_SECRET: 'production-test-secret-0123456789abcdef',
  SVC_DATA_KEY: Buffer.alloc(32, 7).toString('base64'),
  SMTP_URL: 'smtp://127.0.0.1:2525',
};

export interface TestContext {
  app: FastifyInstance;
  deps: Deps;
  db: Deps['db'];
  clock: ManualClock;
  mailer: Mailer;
  config: Config;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  mailer?: Mailer;
  providers?: Partial<Providers>;
  /** Reuse an existing database (e.g. to simulate a second API node over the same data). */
  database?: Database;
  /** Level of the captured log (default trace: every line is scanned for secrets). */
  logLevel?: string;
  /** Reuse the secrets of an earlier app (a restart of the same deployment). */
  secrets?: Deps['secrets'];
  /** Extra routes for a test, registered before the app is ready. */
  register?: (app: FastifyInstance) => void | Promise<void>;
  /** A test's own listeners on the app's event bus, after the modules' ones. */
  subscriptions?: AppSubscription[];
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestContext> {
  const config = loadConfig({
    SVC_DATA_DIR: `/tmp/svc-test-${randomBytes(4).toString('hex')}`,
    SVC_PUBLIC_URL: 'http://localhost:8000',
    SVC_WORKERS_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    ...opts.env,
  });
  const lease = opts.database ? null : await leaseTestDatabase();
  const database = opts.database ?? lease!.database;
  const clock = new ManualClock(new Date('2026-01-15T10:00:00Z'));
  const secrets =
    opts.secrets ??
    deriveSecrets('test-jwt-secret-which-is-long-enough-0123456789', randomBytes(32).toString('base64'));
  const mailer = opts.mailer ?? new MemoryMailer();
  // The service's own logger options, captured in memory: the setup file scans it for secrets.
  const log = captureLogger(opts.logLevel ?? 'trace');
  const deps = assembleDeps({
    config,
    database,
    clock,
    secrets,
    mailer,
    log,
    providers: opts.providers,
    subscriptions: opts.subscriptions,
  });
  const app = await buildApp(deps, {
    instrument: (a) => {
      harvestSecrets(a);
      recordStatuses(a);
    },
  });
  if (opts.register) await opts.register(app);
  await app.ready();
  learnDocument(() => app.swagger() as ReturnType<Parameters<typeof learnDocument>[0]>);
  return {
    app,
    deps,
    db: database.db,
    clock,
    mailer,
    config,
    close: async () => {
      await app.close();
      await lease?.release();
    },
  };
}
