import { defineConfig } from 'vitest/config';

// Database tests run on PGlite always, and again on PostgreSQL when TEST_DATABASE_URL is set.
// Files named *.unit.test.ts touch no database and run once. The Chromium tests of the HTML pages
// (test/browser, *.browser.test.ts) also run once, on PGlite: the engine of `npm start`, where
// merchants try the pages first, and the one whose single connection serializes a page's parallel
// requests. The API paths those pages call run on both engines in their own files.
const runOnce = ['test/**/*.unit.test.ts', 'test/browser/**', 'test/**/*.browser.test.ts'];
const postgres = process.env.TEST_DATABASE_URL
  ? [
      {
        extends: true as const,
        test: {
          name: 'postgres',
          env: { TEST_ENGINE: 'postgres' },
          include: ['test/**/*.test.ts'],
          exclude: runOnce,
        },
      },
    ]
  : [];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // Fails a file whose logs hold a secret it used, or whose API answers an undocumented status.
    setupFiles: ['test/helpers/setup.ts'],
    // Migrates one template database per engine; each test file copies it (test/helpers/db.ts).
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results/vitest.json' },
    projects: [
      {
        extends: true,
        test: { name: 'pglite', env: { TEST_ENGINE: 'pglite' }, include: ['test/**/*.test.ts'] },
      },
      ...postgres,
    ],
  },
});
