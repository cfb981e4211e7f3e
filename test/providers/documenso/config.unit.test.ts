/** SVC_ESIGN_PROVIDER=documenso and the SVC_DOCUMENSO_* settings are validated at start, every problem listed. */
import { describe, expect, it } from 'vitest';
import { type ConfigError, loadConfig } from '../../../src/config';
import type { DocumensoConfig } from '../../../src/providers/esign/documenso/config';
import { PRODUCTION_ENV } from '../../helpers/app';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

const GOOD = {
  SVC_ESIGN_PROVIDER: 'documenso',
  SVC_DOCUMENSO_API_URL: 'https://sign.example.com/api/v2',
  SVC_DOCUMENSO_API_KEY: 'api_0123456789',
  SVC_DOCUMENSO_WEBHOOK_SECRET: 'a-long-webhook-secret-0123456789',
};

describe('e-signing provider configuration', () => {
  it('defaults: simulator in sandbox, none in production; the simulator is refused in production, naming documenso', () => {
    expect(loadConfig({}).esignProvider).toBe('simulator');
    expect(loadConfig({ ...PRODUCTION_ENV }).esignProvider).toBe('none');
    expect(problemsOf({ ...PRODUCTION_ENV, SVC_ESIGN_PROVIDER: 'simulator' })).toEqual([
      'SVC_ESIGN_PROVIDER=simulator is for sandbox deployments (production: documenso or none)',
    ]);
    expect(problemsOf({ SVC_ESIGN_PROVIDER: 'docusign' })[0]).toMatch(
      /must be one of simulator, documenso, none/,
    );
  });

  it('documenso in production: its settings read, defaults filled in', () => {
    const c = loadConfig({ ...PRODUCTION_ENV, ...GOOD });
    expect(c.esignProvider).toBe('documenso');
    expect(c.providers.esign.settings as DocumensoConfig).toMatchObject({
      apiUrl: 'https://sign.example.com/api/v2',
      timeoutMs: 10000,
      maxAttempts: 3,
    });
  });

  it('lists every missing or bad setting at once, saying why', () => {
    expect(problemsOf({ ...PRODUCTION_ENV, SVC_ESIGN_PROVIDER: 'documenso' })).toEqual([
      'SVC_DOCUMENSO_API_KEY is required when SVC_ESIGN_PROVIDER=documenso',
      'SVC_DOCUMENSO_WEBHOOK_SECRET is required when SVC_ESIGN_PROVIDER=documenso',
    ]);
    expect(
      problemsOf({
        ...PRODUCTION_ENV,
        ...GOOD,
        SVC_DOCUMENSO_API_URL: 'http://sign.example.com/api/v2',
        SVC_DOCUMENSO_WEBHOOK_SECRET: 'short',
        SVC_DOCUMENSO_TIMEOUT_MS: '5',
      }),
    ).toEqual([
      'SVC_DOCUMENSO_API_URL must be an https URL (http only for localhost)',
      'SVC_DOCUMENSO_WEBHOOK_SECRET must be at least 24 characters (it is the only proof a notification comes from Documenso)',
      'SVC_DOCUMENSO_TIMEOUT_MS must be an integer between 100 and 60000 (got "5")',
    ]);
    expect(problemsOf({ ...GOOD, SVC_DOCUMENSO_API_URL: 'https://app.documenso.com/api/v1' })).toEqual([
      'SVC_DOCUMENSO_API_URL must end with /api/v2 (the adapter speaks the v2 API)',
    ]);
    expect(problemsOf({ ...GOOD, SVC_DOCUMENSO_API_URL: 'http://127.0.0.1:4030/api/v2' })).toEqual([]);
  });
});
