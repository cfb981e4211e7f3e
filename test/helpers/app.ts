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
import type { AnyProviderDefinition } from '../../src/providers/definition';
import type { Mailer, MailMessage } from '../../src/providers/mail/port';
import { ManualClock } from '../../src/shared/clock';
import { deriveSecrets } from '../../src/shared/crypto';
import { leaseTestDatabase, leaseWorkerDatabase } from './db';
import { onFileEnd } from './file-end';
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
  /**
   * Provider definitions beside the registry's (a test's fake vendor), selectable by name through
   * the usual setting (e.g. `SVC_BANK_PROVIDER`) in `env`.
   */
  providerDefinitions?: readonly AnyProviderDefinition[];
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

/** Where every test app's manual clock starts. */
export const TEST_CLOCK_START = new Date('2026-01-15T10:00:00Z');

/** What an app is made of, before a lease turns it into a TestContext. */
interface Built {
  app: FastifyInstance;
  deps: Deps;
  clock: ManualClock;
  config: Config;
}

async function buildTestApp(opts: TestAppOptions, database: Database, mailer: Mailer): Promise<Built> {
  const config = loadConfig(
    {
      SVC_DATA_DIR: `/tmp/svc-test-${randomBytes(4).toString('hex')}`,
      SVC_PUBLIC_URL: 'http://localhost:8000',
      SVC_WORKERS_ENABLED: 'false',
      LOG_LEVEL: 'silent',
      ...opts.env,
    },
    { providers: opts.providerDefinitions },
  );
  const clock = new ManualClock(TEST_CLOCK_START);
  const secrets =
    opts.secrets ??
    deriveSecrets('test-jwt-secret-which-is-long-enough-0123456789', randomBytes(32).toString('base64'));
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
    providerDefinitions: opts.providerDefinitions,
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
  return { app, deps, clock, config };
}

/** The status check learns each file's document from the app it used (generated lazily, once per app). */
function learnAppDocument(app: FastifyInstance): void {
  learnDocument(() => app.swagger() as ReturnType<Parameters<typeof learnDocument>[0]>);
}

/**
 * Builds the real app over an empty database. Without settings (no options, or only `mailer`) it
 * is the worker's shared app (below): built once per worker, handed to one file at a time over the
 * worker's emptied database, with its state reset. Any other option builds an app of its own, as
 * does a second app while the shared one is in use. `close()` gives the shared app back (the next
 * file reuses it) and closes an app of its own.
 */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestContext> {
  if (usesDefaults(opts)) {
    const leased = await leaseSharedApp(opts.mailer);
    if (leased) return leased;
  }
  const lease = opts.database ? null : await leaseTestDatabase();
  const database = opts.database ?? lease!.database;
  const mailer = opts.mailer ?? new MemoryMailer();
  let built: Built;
  try {
    built = await buildTestApp(opts, database, mailer);
  } catch (err) {
    await lease?.release();
    throw err;
  }
  const { app, deps, clock, config } = built;
  learnAppDocument(app);
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

/** Default settings: nothing but, at most, the mailer (which the shared app forwards to). */
function usesDefaults(opts: TestAppOptions): boolean {
  return Object.entries(opts).every(
    ([key, value]) =>
      value === undefined ||
      key === 'mailer' ||
      (key === 'env' && Object.keys(value as Record<string, string>).length === 0),
  );
}

/**
 * The worker's shared app's mailer: the service sends through it (`deps.mailer`), and it hands each
 * message to the mailer of the file holding the app (`ctx.mailer`: the file's own, or a fresh
 * MemoryMailer), so no file sees another's mail.
 */
class ForwardingMailer implements Mailer {
  target: Mailer = new MemoryMailer();
  send(m: MailMessage): Promise<void> {
    return this.target.send(m);
  }
}

/**
 * The objects whose properties a file could change on the shared app (replacing a provider, a
 * `vi.spyOn` left in place, a changed setting): their own properties as built. The app is reused only
 * when they are all still the same; otherwise it is closed and the next file builds a new one.
 */
type Snapshot = { label: string; target: object; props: Map<PropertyKey, unknown>; methodsOnly: boolean }[];

function snapshotOf(built: Built, mailer: ForwardingMailer): Snapshot {
  const entries: [string, object, boolean][] = [
    ['deps', built.deps, false],
    ['deps.providers', built.deps.providers, false],
    ...Object.entries(built.deps.providers).map(
      ([name, provider]) =>
        [`deps.providers.${name}`, provider as object, false] as [string, object, boolean],
    ),
    ['deps.database', built.deps.database, false],
    ['deps.db', built.deps.db, true],
    ['deps.secrets', built.deps.secrets, false],
    ['deps.log', built.deps.log, true],
    ['deps.events', built.deps.events, false],
    ['clock', built.clock, true],
    ['mailer', mailer, true],
  ];
  return entries.map(([label, target, methodsOnly]) => ({
    label,
    target,
    methodsOnly,
    props: ownProps(target, methodsOnly),
  }));
}

function ownProps(target: object, methodsOnly: boolean): Map<PropertyKey, unknown> {
  const props = new Map<PropertyKey, unknown>();
  for (const key of Reflect.ownKeys(target)) {
    const value = Reflect.get(target, key);
    if (!methodsOnly || typeof value === 'function') props.set(key, value);
  }
  return props;
}

/** Why the shared app cannot be handed to another file as it is, or null when it can. */
function changedSince(shared: SharedApp): string | null {
  if (shared.built.app.server.listening) return 'it was listening on a port';
  if (JSON.stringify(shared.built.config) !== shared.config) return 'its config was changed';
  for (const { label, target, props, methodsOnly } of shared.snapshot) {
    const now = ownProps(target, methodsOnly);
    for (const key of new Set([...props.keys(), ...now.keys()]))
      if (props.get(key) !== now.get(key)) return `${label}.${String(key)} was changed`;
  }
  return null;
}

interface SharedApp {
  built: Built;
  mailer: ForwardingMailer;
  /** The config as built (JSON), to notice a file changing it. */
  config: string;
  snapshot: Snapshot;
  leased: boolean;
}

let shared: SharedApp | undefined;
let sharedBuilds = 0;
let sharedLeases = 0;

/** How often this worker built its shared app, and handed it out (the reuse test reads it). */
export function sharedAppStats(): { builds: number; leases: number; leased: boolean } {
  return { builds: sharedBuilds, leases: sharedLeases, leased: shared?.leased ?? false };
}

/**
 * The shared app for one file, over the worker's database emptied for it; null when the shared app
 * or the worker's database is in use (the caller then builds an app of its own). Each lease resets
 * what the app keeps between requests: the clock to its start, the metrics to zero, the mail to the
 * file's mailer. The log capture and the status recorder are reset per file by the setup file.
 */
async function leaseSharedApp(mailer: Mailer | undefined): Promise<TestContext | null> {
  if (shared?.leased) return null;
  const lease = await leaseWorkerDatabase();
  if (!lease) return null;
  let s: SharedApp;
  try {
    if (shared) s = shared;
    else {
      const forwarding = new ForwardingMailer();
      const built = await buildTestApp({}, lease.database, forwarding);
      sharedBuilds++;
      s = {
        built,
        mailer: forwarding,
        config: JSON.stringify(built.config),
        snapshot: snapshotOf(built, forwarding),
        leased: false,
      };
      shared = s;
    }
  } catch (err) {
    await lease.release();
    throw err;
  }
  s.leased = true;
  sharedLeases++;
  const { app, deps, clock, config } = s.built;
  clock.set(TEST_CLOCK_START);
  deps.metrics.resetMetrics();
  const fileMailer = mailer ?? new MemoryMailer();
  s.mailer.target = fileMailer;
  learnAppDocument(app);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    // Requests a file left running finish before the next file's truncate.
    await app.inflight.drain(10_000);
    s.mailer.target = new MemoryMailer();
    const changed = changedSince(s);
    if (changed) {
      console.warn(`[test app] the shared app is not reused (${changed}): the next file builds a new one`);
      if (shared === s) shared = undefined;
      await app.close();
    }
    s.leased = false;
    onFileEnd(undefined);
    await lease.release();
  };
  // A file that never closes the app gives it back when it ends (test/helpers/setup.ts).
  onFileEnd(close);
  return { app, deps, db: deps.db, clock, mailer: fileMailer, config, close };
}
