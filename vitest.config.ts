import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Which engine a test file runs on (docs/testing.md):
 * - with TEST_DATABASE_URL (CI always has it), every file runs once on PostgreSQL, production's
 *   engine; the files whose behaviour depends on the engine (the database client, hot statements,
 *   claim and locking races, idempotency races, one crash test for the embedded database's
 *   recovery, the embedded start-up) run on PGlite as well (the other process tests, which start
 *   service processes for tens of seconds each, prove nothing engine-specific a second time),
 *   and the Chromium page tests run on PGlite only (the engine of `npm start`, whose single
 *   connection serializes a page's parallel requests);
 * - without it, everything runs on PGlite.
 */
const BOTH_ENGINES = [
  'test/foundation/hot-statements.test.ts',
  'test/foundation/server-process.test.ts',
  'test/foundation/health.test.ts',
  'test/platform/jobs.test.ts',
  'test/platform/timers.test.ts',
  'test/platform/idempotency.test.ts',
  'test/auth/login-burst.test.ts',
  'test/billing/gapless-numbers.test.ts',
  'test/webhooks/crash.test.ts',
  'test/webhooks/dispatch-batch.test.ts',
  'test/recurring/concurrency.test.ts',
  'test/payments/paylink.test.ts',
  'test/payments/statement-count.test.ts',
  'test/payments/transaction-counts.test.ts',
  'test/refunds/concurrency.test.ts',
];
/** Files that mock a module (vi.mock) need a fresh module graph: they run isolated. */
const ISOLATED = ['test/auth/login-before-argon2.test.ts'];
const PGLITE_ONLY = [
  'test/browser/**',
  'test/**/*.browser.test.ts',
  'test/foundation/pglite-analyze.test.ts',
  'test/foundation/fresh-data-dir.test.ts',
  'test/hardening/npm-start.test.ts',
];

/**
 * CI's second pass on Node 24 (`SVC_TEST_PASS=runtime`, PostgreSQL only): what leans on the runtime
 * (native argon2, crypto, TOTP and tokens, the SMTP socket, the HTTP server as a process, webhook
 * signing) and the unit tests, except those that only compare files or measure memory. The auth and
 * platform files that test database logic through the API (permissions, team accounts, settings,
 * lockout counters, jobs, timers, idempotency, machines) run on Node 20 only since 2026-11-29: what
 * they prove does not depend on the runtime's version.
 */
const RUNTIME_PASS = {
  include: [
    'test/auth/credentials-api.test.ts',
    'test/auth/login-burst.test.ts',
    'test/auth/mfa-login.test.ts',
    'test/auth/password-change.test.ts',
    'test/auth/register-flow.test.ts',
    'test/auth/security-challenges.test.ts',
    'test/auth/session-tokens.test.ts',
    'test/auth/token-generation.test.ts',
    'test/platform/smtp-outage.test.ts',
    'test/foundation/server-process.test.ts',
    'test/webhooks/standard-webhooks.test.ts',
    'test/**/*.unit.test.ts',
  ],
  exclude: [
    'test/sdk/generated.unit.test.ts',
    'test/dx/openapi-names.unit.test.ts',
    'test/bulk-links/parse-memory.unit.test.ts',
  ],
};

const projects =
  process.env.SVC_TEST_PASS === 'runtime'
    ? [
        {
          extends: true as const,
          test: {
            name: 'postgres',
            env: { TEST_ENGINE: 'postgres' },
            include: RUNTIME_PASS.include,
            exclude: [...RUNTIME_PASS.exclude, ...ISOLATED],
          },
        },
        {
          extends: true as const,
          test: {
            name: 'postgres-isolated',
            env: { TEST_ENGINE: 'postgres' },
            include: ISOLATED,
            isolate: true,
          },
        },
      ]
    : process.env.TEST_DATABASE_URL
      ? [
          {
            extends: true as const,
            test: {
              name: 'postgres',
              env: { TEST_ENGINE: 'postgres' },
              include: ['test/**/*.test.ts'],
              exclude: [...PGLITE_ONLY, ...ISOLATED],
            },
          },
          {
            extends: true as const,
            test: {
              name: 'postgres-isolated',
              env: { TEST_ENGINE: 'postgres' },
              include: ISOLATED,
              isolate: true,
            },
          },
          {
            extends: true as const,
            test: {
              name: 'pglite',
              env: { TEST_ENGINE: 'pglite' },
              include: [...BOTH_ENGINES, ...PGLITE_ONLY],
            },
          },
        ]
      : [
          {
            extends: true as const,
            test: {
              name: 'pglite',
              env: { TEST_ENGINE: 'pglite' },
              include: ['test/**/*.test.ts'],
              exclude: ISOLATED,
            },
          },
          {
            extends: true as const,
            test: {
              name: 'pglite-isolated',
              env: { TEST_ENGINE: 'pglite' },
              include: ISOLATED,
              isolate: true,
            },
          },
        ];

export default defineConfig({
  // The SDK from its sources (its package exports point at a build only `npm pack` makes).
  resolve: { alias: { '@svc/sdk': fileURLToPath(new URL('packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    // A process test's beforeAll may build dist/ locally (test/helpers/process.ts) on a loaded machine.
    hookTimeout: 120_000,
    // Three workers on CI's two cores: a worker often waits (service processes starting, real
    // delays, Chromium), and a third keeps the cores busy meanwhile (docs/testing.md, "How long it takes").
    maxWorkers: Number(process.env.SVC_TEST_WORKERS ?? 3),
    // Files share their worker's modules and its database (emptied between apps: test/helpers/db.ts),
    // so the app's modules load once per worker instead of once per file.
    isolate: false,
    // Fails a file whose logs hold a secret it used, or whose API answers an undocumented status.
    setupFiles: ['test/helpers/setup.ts'],
    // Migrates one template database per engine; worker databases copy it (test/helpers/db.ts).
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: process.env.CI ? ['default', 'json', './test/helpers/timing-reporter.ts'] : ['default'],
    outputFile: { json: 'test-results/vitest.json' },
    projects,
  },
});
