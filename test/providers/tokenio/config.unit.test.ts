/** SVC_BANK_PROVIDER and SVC_TOKENIO_*: checked at start, every problem listed, exit 78. */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config';
import { tokenioSettings } from '../../../src/providers/bank/tokenio/config';
import { PRODUCTION_ENV } from '../../helpers/app';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

const base = {
  SVC_BANK_PROVIDER: 'tokenio',
  SVC_TOKENIO_API_URL: 'https://api.sandbox.token.io',
  SVC_TOKENIO_MEMBER_ID: 'm:abc:def',
  SVC_TOKENIO_API_KEY: 'key',
  SVC_TOKENIO_WEBHOOK_SECRET: 'a-long-random-path-segment',
};

describe('SVC_BANK_PROVIDER', () => {
  it('defaults: the simulator on sandbox, none in production; the simulator is refused in production', () => {
    expect(loadConfig({}).bankProvider).toBe('simulator');
    expect(loadConfig({ ...PRODUCTION_ENV }).bankProvider).toBe('none');
    expect(problemsOf({ ...PRODUCTION_ENV, SVC_BANK_PROVIDER: 'simulator' })).toEqual([
      'SVC_BANK_PROVIDER=simulator is for sandbox deployments (production: tokenio or none)',
    ]);
    expect(problemsOf({ SVC_BANK_PROVIDER: 'stripe' })[0]).toMatch(/SVC_BANK_PROVIDER must be one of/);
  });

  it('tokenio without settings lists every missing one at once', () => {
    expect(problemsOf({ SVC_BANK_PROVIDER: 'tokenio' })).toEqual([
      'SVC_TOKENIO_API_URL is required when SVC_BANK_PROVIDER=tokenio',
      'SVC_TOKENIO_MEMBER_ID is required when SVC_BANK_PROVIDER=tokenio',
      'Token.io credentials are required: SVC_TOKENIO_API_KEY (sandbox) or SVC_TOKENIO_KEY_ID with SVC_TOKENIO_PRIVATE_KEY',
      'SVC_TOKENIO_WEBHOOK_SECRET is required when SVC_BANK_PROVIDER=tokenio',
    ]);
  });

  it('refuses an API key against Token.io production, plain http off loopback, a short webhook secret', () => {
    expect(problemsOf({ ...base, SVC_TOKENIO_API_URL: 'https://api.token.io' })).toEqual([
      'Token.io production (api.token.io) requires JWT authentication: set SVC_TOKENIO_KEY_ID and SVC_TOKENIO_PRIVATE_KEY instead of SVC_TOKENIO_API_KEY',
    ]);
    expect(problemsOf({ ...base, SVC_TOKENIO_API_URL: 'http://tokenio.internal' })).toEqual([
      'SVC_TOKENIO_API_URL must be https (http only for a local stand-in on loopback)',
    ]);
    expect(problemsOf({ ...base, SVC_TOKENIO_API_URL: 'http://127.0.0.1:4010' })).toEqual([]);
    expect(problemsOf({ ...base, SVC_TOKENIO_WEBHOOK_SECRET: 'short' })[0]).toMatch(
      /WEBHOOK_SECRET must be 16-128/,
    );
  });

  it('production talks to https://api.token.io only; a loopback stand-in only behind SVC_TOKENIO_ALLOW_STANDIN (issue 36 point 12)', () => {
    const ed = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const prod = {
      ...PRODUCTION_ENV,
      ...base,
      SVC_TOKENIO_API_KEY: '',
      SVC_TOKENIO_KEY_ID: 'k1',
      SVC_TOKENIO_PRIVATE_KEY: ed,
      SVC_TOKENIO_TERMS_URL: 'https://terms.example/tokenio',
    };
    const refused =
      'SVC_TOKENIO_API_URL must be https://api.token.io in production (a loopback stand-in only with SVC_TOKENIO_ALLOW_STANDIN=true, for tests)';
    expect(problemsOf({ ...prod, SVC_TOKENIO_API_URL: 'https://api.token.io' })).toEqual([]);
    expect(problemsOf({ ...prod, SVC_TOKENIO_API_URL: 'https://api.token.io/' })).toEqual([]);
    for (const url of [
      'https://api.sandbox.token.io',
      'https://api.token.io.evil.example',
      'https://api.token.io:8443',
      'https://api.token.io/v2',
      'http://127.0.0.1:4010',
    ])
      expect(problemsOf({ ...prod, SVC_TOKENIO_API_URL: url }), url).toEqual([refused]);
    expect(
      problemsOf({
        ...prod,
        SVC_TOKENIO_API_URL: 'http://127.0.0.1:4010',
        SVC_TOKENIO_ALLOW_STANDIN: 'true',
      }),
    ).toEqual([]);
    expect(
      problemsOf({
        ...prod,
        SVC_TOKENIO_API_URL: 'https://api.sandbox.token.io',
        SVC_TOKENIO_ALLOW_STANDIN: 'true',
      }),
    ).toEqual([refused]);
    // Sandbox deployments keep any https URL (Token.io's sandbox).
    expect(problemsOf({ ...base })).toEqual([]);
  });

  it('VRP mandates: off by default in production, on in sandbox; scheme and risk.paymentContextCode configurable (issue 36 point 9)', () => {
    const sandbox = tokenioSettings(loadConfig({ ...base }))!;
    expect(sandbox.vrp).toEqual({
      enabled: true,
      scheme: 'OBL_SWEEPING',
      paymentContextCode: 'TRANSFER_TO_SELF',
    });
    const prod = {
      ...PRODUCTION_ENV,
      ...base,
      SVC_TOKENIO_API_URL: 'http://127.0.0.1:4010',
      SVC_TOKENIO_ALLOW_STANDIN: 'true',
      SVC_TOKENIO_TERMS_URL: 'https://terms.example/tokenio',
    };
    expect(tokenioSettings(loadConfig(prod))!.vrp.enabled).toBe(false);
    expect(
      tokenioSettings(
        loadConfig({
          ...prod,
          SVC_TOKENIO_VRP_ENABLED: 'true',
          SVC_TOKENIO_VRP_SCHEME: 'OBL_COMMERCIAL',
          SVC_TOKENIO_VRP_PAYMENT_CONTEXT_CODE: 'BILLING_GOODS_AND_SERVICES_IN_ARREARS',
        }),
      )!.vrp,
    ).toEqual({
      enabled: true,
      scheme: 'OBL_COMMERCIAL',
      paymentContextCode: 'BILLING_GOODS_AND_SERVICES_IN_ARREARS',
    });
    expect(
      tokenioSettings(loadConfig({ ...base, SVC_TOKENIO_VRP_PAYMENT_CONTEXT_CODE: 'none' }))!.vrp
        .paymentContextCode,
    ).toBeNull();
    expect(problemsOf({ ...base, SVC_TOKENIO_VRP_SCHEME: 'sweeping please' })).toEqual([
      'SVC_TOKENIO_VRP_SCHEME must be a Token.io VRP scheme name such as OBL_SWEEPING',
    ]);
    expect(problemsOf({ ...base, SVC_TOKENIO_VRP_PAYMENT_CONTEXT_CODE: 'SHOPPING' })[0]).toMatch(
      /SVC_TOKENIO_VRP_PAYMENT_CONTEXT_CODE must be one of/,
    );
  });

  it('consent: ours (sentence + Terms, required in production) or Token.io’s hosted page (issue 36 point 8)', () => {
    expect(tokenioSettings(loadConfig({ ...base }))!.consent).toMatchObject({
      collect: 'ours',
      termsUrl: null,
    });
    expect(tokenioSettings(loadConfig({ ...base, SVC_TOKENIO_CONSENT: 'hosted' }))!.consent.collect).toBe(
      'hosted',
    );
    expect(problemsOf({ ...base, SVC_TOKENIO_CONSENT: 'maybe' })).toEqual([
      'SVC_TOKENIO_CONSENT must be ours or hosted',
    ]);
    expect(problemsOf({ ...base, SVC_TOKENIO_CONSENT_TEXT: 'Pay securely.' })).toEqual([
      'SVC_TOKENIO_CONSENT_TEXT must name the beneficiary with {beneficiary}',
    ]);
    const prod = {
      ...PRODUCTION_ENV,
      ...base,
      SVC_TOKENIO_API_URL: 'http://127.0.0.1:4010',
      SVC_TOKENIO_ALLOW_STANDIN: 'true',
    };
    expect(problemsOf(prod)).toEqual([
      "SVC_TOKENIO_TERMS_URL is required in production with SVC_TOKENIO_CONSENT=ours (the payer must be shown Token.io's Terms)",
    ]);
    expect(problemsOf({ ...prod, SVC_TOKENIO_CONSENT: 'hosted' })).toEqual([]);
  });

  it('JWT credentials: an Ed25519 or P-256 PEM (inline, with \\n escapes, or a file path), key id and key together', () => {
    const ed = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const jwt = {
      ...base,
      SVC_TOKENIO_API_KEY: '',
      SVC_TOKENIO_API_URL: 'https://api.token.io',
      SVC_TOKENIO_KEY_ID: 'k1',
    };
    const ok = loadConfig({ ...jwt, SVC_TOKENIO_PRIVATE_KEY: ed.replace(/\n/g, '\\n') });
    expect(tokenioSettings(ok)?.auth).toMatchObject({ kind: 'jwt', keyId: 'k1', alg: 'EdDSA' });
    // RS256 (issue 36 point 13): Token.io enrols RSA keys; a 1024-bit one is too weak.
    expect(problemsOf({ ...jwt, SVC_TOKENIO_PRIVATE_KEY: rsa })).toEqual([
      'SVC_TOKENIO_PRIVATE_KEY must be an Ed25519, P-256 (ES256) or RSA of 2048 bits or more (RS256) key',
    ]);
    const rsa2048 = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(tokenioSettings(loadConfig({ ...jwt, SVC_TOKENIO_PRIVATE_KEY: rsa2048 }))?.auth).toMatchObject({
      kind: 'jwt',
      alg: 'RS256',
    });
    expect(problemsOf({ ...jwt, SVC_TOKENIO_PRIVATE_KEY: '/nonexistent.pem' })).toEqual([
      'SVC_TOKENIO_PRIVATE_KEY must be a PEM private key or the path of a PEM file',
    ]);
    expect(problemsOf({ ...jwt, SVC_TOKENIO_KEY_ID: '', SVC_TOKENIO_PRIVATE_KEY: ed })).toEqual([
      'SVC_TOKENIO_KEY_ID and SVC_TOKENIO_PRIVATE_KEY must be set together',
    ]);
    expect(problemsOf({ ...base, SVC_TOKENIO_KEY_ID: 'k1' })).toEqual([
      'Set either SVC_TOKENIO_API_KEY or SVC_TOKENIO_KEY_ID with SVC_TOKENIO_PRIVATE_KEY, not both',
    ]);
  });

  it('the service refuses to start (exit 78) listing every Token.io problem', () => {
    const root = path.resolve(import.meta.dirname, '../../..');
    const r = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['src/server.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SVC_BANK_PROVIDER: 'tokenio',
        SVC_TOKENIO_TIMEOUT_MS: '5',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('SVC_TOKENIO_API_URL is required when SVC_BANK_PROVIDER=tokenio');
    expect(r.stderr).toContain('SVC_TOKENIO_WEBHOOK_SECRET is required');
    expect(r.stderr).toContain('SVC_TOKENIO_TIMEOUT_MS must be an integer between 2000 and 60000');
  });
});

describe('SVC_TOKENIO_PAYMENT_CONTEXT_CODE (brief H2 point 3)', () => {
  it('single payments carry BILLING_GOODS_AND_SERVICES_IN_ADVANCE by default; none sends nothing; a code the reference does not list is refused', () => {
    expect(tokenioSettings(loadConfig(base))!.paymentContextCode).toBe(
      'BILLING_GOODS_AND_SERVICES_IN_ADVANCE',
    );
    expect(
      tokenioSettings(loadConfig({ ...base, SVC_TOKENIO_PAYMENT_CONTEXT_CODE: 'none' }))!.paymentContextCode,
    ).toBeNull();
    expect(
      tokenioSettings(loadConfig({ ...base, SVC_TOKENIO_PAYMENT_CONTEXT_CODE: 'PISP_PAYEE' }))!
        .paymentContextCode,
    ).toBe('PISP_PAYEE');
    expect(problemsOf({ ...base, SVC_TOKENIO_PAYMENT_CONTEXT_CODE: 'ECOMMERCE_GOODS' })).toEqual([
      expect.stringMatching(/^SVC_TOKENIO_PAYMENT_CONTEXT_CODE must be one of/),
    ]);
  });
});

describe('SVC_TOKENIO_REVIEW_DAYS (review H8 point 5)', () => {
  it('defaults to 31 days: Token.io keeps polling a processing payment for about 30 days', () => {
    expect(tokenioSettings(loadConfig(base))?.review).toEqual({ intervalSeconds: 7200, days: 31 });
    expect(tokenioSettings(loadConfig({ ...base, SVC_TOKENIO_REVIEW_DAYS: '5' }))?.review.days).toBe(5);
  });
});
