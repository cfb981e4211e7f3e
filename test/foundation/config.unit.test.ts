import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_WEBHOOK_BACKOFF, loadConfig } from '../../src/config';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8000);
    expect(c.environment).toBe('sandbox');
    expect(c.publicUrl).toBe('http://localhost:8000');
    expect(c.databaseUrl).toBeNull();
    expect(c.registrationEnabled).toBe(true);
    expect(c.sandboxOpcoActivationSeconds).toBe(10);
    expect(c.webhookBackoffSeconds).toEqual(DEFAULT_WEBHOOK_BACKOFF);
    expect(c.refreshCooldownSeconds).toBe(10);
  });

  it('derives the public URL from PORT', () => {
    expect(loadConfig({ PORT: '9001' }).publicUrl).toBe('http://localhost:9001');
  });

  it('parses every value kind', () => {
    const c = loadConfig({
      SVC_ENVIRONMENT: 'sandbox',
      DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
      SVC_REGISTRATION_ENABLED: 'false',
      SVC_WEBHOOK_BACKOFF_SECONDS: '0,1,1,1,1,1,1,1',
      SVC_PUBLIC_URL: 'https://pay.example.com/',
    });
    expect(c.databaseUrl).toBe('postgres://u@127.0.0.1:5432/db');
    expect(c.registrationEnabled).toBe(false);
    expect(c.webhookBackoffSeconds).toEqual([0, 1, 1, 1, 1, 1, 1, 1]);
    expect(c.publicUrl).toBe('https://pay.example.com');
  });

  it('refuses bad values with one message listing every problem', () => {
    let err: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        SVC_ENVIRONMENT: 'staging',
        DATABASE_URL: 'mysql://x',
        SVC_REGISTRATION_ENABLED: 'maybe',
        SVC_WEBHOOK_BACKOFF_SECONDS: '1,2,3',
        SVC_BOOTSTRAP_STAFF_EMAIL: 'a@b.c',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT must be an integer/);
    expect(problems).toMatch(/SVC_ENVIRONMENT must be one of sandbox, production/);
    expect(problems).toMatch(/DATABASE_URL must be a postgres or postgresql URL/);
    expect(problems).toMatch(/SVC_REGISTRATION_ENABLED must be true or false/);
    expect(problems).toMatch(/SVC_WEBHOOK_BACKOFF_SECONDS must be 8/);
    expect(problems).toMatch(/must be set together/);
  });

  it('requires real secrets and PostgreSQL in production', () => {
    expect(() => loadConfig({ SVC_ENVIRONMENT: 'production' })).toThrow(
      /DATABASE_URL is required in production/,
    );
  });

  it('production needs SMTP_URL, or SVC_LOCAL_MAIL=true for a local try (mail to the data directory)', () => {
    const base = {
      SVC_ENVIRONMENT: 'production',
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      SVC_JWT_SECRET: 'production-test-secret-0123456789abcdef',
      SVC_DATA_KEY: Buffer.alloc(32, 7).toString('base64'),
      SVC_BILLING_PAYEE_NAME: 'Payments Platform Ltd',
      SVC_BILLING_PAYEE_IBAN: 'GB33BUKB20201555555555',
      SVC_BILLING_PAYEE_BIC: 'BUKBGB22',
    };
    expect(() => loadConfig(base)).toThrow(/SMTP_URL is required in production \(SVC_LOCAL_MAIL=true/);
    const local = loadConfig({ ...base, SVC_LOCAL_MAIL: 'true' });
    expect(local).toMatchObject({ smtpUrl: null, localMail: true });
    expect(() => loadConfig({ ...base, SVC_LOCAL_MAIL: 'true', SMTP_URL: 'smtp://127.0.0.1:2525' })).toThrow(
      /SVC_LOCAL_MAIL=true and SMTP_URL exclude each other/,
    );
  });
});
