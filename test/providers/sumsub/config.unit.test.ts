/** SVC_VERIFICATION_PROVIDER and the SVC_SUMSUB_* settings are validated at start, every problem listed. */
import { describe, expect, it } from 'vitest';
import { type ConfigError, loadConfig } from '../../../src/config';
import { sumsubSettings } from '../../../src/providers/verification/sumsub/config';
import { PRODUCTION_ENV } from '../../helpers/app';
import { SUMSUB_LEVELS, sumsubEnv } from '../../kyc/sumsub-fixtures';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe('verification provider configuration', () => {
  it('defaults: simulator in sandbox, none in production; simulator is refused in production', () => {
    expect(loadConfig({}).verificationProvider).toBe('simulator');
    expect(loadConfig({ ...PRODUCTION_ENV }).verificationProvider).toBe('none');
    expect(problemsOf({ ...PRODUCTION_ENV, SVC_VERIFICATION_PROVIDER: 'simulator' })).toEqual([
      'SVC_VERIFICATION_PROVIDER=simulator is for sandbox deployments (use sumsub or none)',
    ]);
    expect(problemsOf({ SVC_VERIFICATION_PROVIDER: 'onfido' })[0]).toMatch(
      /must be one of simulator, sumsub, none/,
    );
  });

  it('sumsub lists every missing or bad setting at once', () => {
    const problems = problemsOf({
      SVC_VERIFICATION_PROVIDER: 'sumsub',
      SVC_SUMSUB_API_URL: 'http://api.sumsub.com',
      SVC_SUMSUB_LEVELS: 'basic=basic-kyc-level,nonsense',
      SVC_SUMSUB_TIMEOUT_MS: '5',
    });
    expect(problems).toEqual([
      'SVC_SUMSUB_API_URL must be an https URL (http only for localhost)',
      'SVC_SUMSUB_APP_TOKEN is required when SVC_VERIFICATION_PROVIDER=sumsub',
      'SVC_SUMSUB_SECRET_KEY is required when SVC_VERIFICATION_PROVIDER=sumsub',
      'SVC_SUMSUB_WEBHOOK_SECRET is required when SVC_VERIFICATION_PROVIDER=sumsub',
      'SVC_SUMSUB_LEVELS: "nonsense" is not of the form our-level=sumsub-level',
      'SVC_SUMSUB_LEVELS must map every built-in level (missing: standard, enhanced, kyb-basic, kyb-standard)',
      'SVC_SUMSUB_TIMEOUT_MS must be an integer between 100 and 60000 (got "5")',
    ]);
  });

  it('a complete sumsub configuration loads, custom level names included', () => {
    const c = loadConfig({
      ...PRODUCTION_ENV,
      ...sumsubEnv('https://api.sumsub.com'),
      SVC_SUMSUB_LEVELS: `${SUMSUB_LEVELS},Gold Tier=gold-kyc-level`,
    });
    expect(sumsubSettings(c)).toMatchObject({ apiUrl: 'https://api.sumsub.com', timeoutMs: 2000 });
    expect(sumsubSettings(c)!.levels['gold tier']).toBe('gold-kyc-level');
  });

  it('production refuses a Sumsub sandbox app token (sbx:); sandbox accepts it', () => {
    const env = { ...sumsubEnv('https://api.sumsub.com'), SVC_SUMSUB_APP_TOKEN: 'sbx:abc' };
    expect(problemsOf({ ...PRODUCTION_ENV, ...env })).toEqual([
      'SVC_SUMSUB_APP_TOKEN is a Sumsub sandbox token (it starts with "sbx:"): a production deployment needs a production app token',
    ]);
    expect(problemsOf(env)).toEqual([]);
  });
});

describe('SVC_SUMSUB_KYB_FLOW', () => {
  it('kyb2 by default; kyb1 or kyb2 only', () => {
    const env = { ...PRODUCTION_ENV, ...sumsubEnv('https://api.sumsub.com') };
    expect(sumsubSettings(loadConfig(env))!.kybFlow).toBe('kyb2');
    expect(sumsubSettings(loadConfig({ ...env, SVC_SUMSUB_KYB_FLOW: 'kyb1' }))!.kybFlow).toBe('kyb1');
    expect(problemsOf({ ...env, SVC_SUMSUB_KYB_FLOW: '2.0' })).toEqual([
      'SVC_SUMSUB_KYB_FLOW must be kyb1 or kyb2 (got "2.0")',
    ]);
  });
});

describe('SVC_SUMSUB_CONSENT_TEXT and SVC_SUMSUB_PRIVACY_URL', () => {
  it('production requires the privacy link (sandbox does not)', () => {
    const { SVC_SUMSUB_PRIVACY_URL: _, ...env } = sumsubEnv('https://api.sumsub.com');
    expect(problemsOf({ ...PRODUCTION_ENV, ...env })).toEqual([
      'SVC_SUMSUB_PRIVACY_URL is required in production when SVC_VERIFICATION_PROVIDER=sumsub',
    ]);
    expect(problemsOf(env)).toEqual([]);
  });

  it('the default text says that Sumsub processes the data and points to the privacy notice', () => {
    const text = sumsubSettings(loadConfig({ ...PRODUCTION_ENV, ...sumsubEnv('https://api.sumsub.com') }))!
      .consent.text;
    expect(text).toContain('sent to Sumsub, which processes them');
    expect(text).toContain('How Sumsub processes your personal data is explained in the privacy notice');
  });

  it('a built-in disclosure by default; its version follows the text and the link; the link must be http(s)', () => {
    const { SVC_SUMSUB_PRIVACY_URL: _, ...env } = sumsubEnv('https://api.sumsub.com');
    const base = sumsubSettings(loadConfig(env))!.consent;
    expect(base.text).toMatch(/^\{merchant\} uses Sumsub/);
    expect(base.privacyUrl).toBeNull();
    expect(base.version).toMatch(/^sha256:[0-9a-f]{16}$/);
    const withUrl = sumsubSettings(
      loadConfig({ ...env, SVC_SUMSUB_PRIVACY_URL: 'https://example.com/privacy' }),
    )!.consent;
    expect(withUrl.privacyUrl).toBe('https://example.com/privacy');
    expect(withUrl.version).not.toBe(base.version);
    const own = sumsubSettings(loadConfig({ ...env, SVC_SUMSUB_CONSENT_TEXT: 'Our own words.' }))!.consent;
    expect(own.text).toBe('Our own words.');
    expect(own.version).not.toBe(base.version);
    expect(problemsOf({ ...env, SVC_SUMSUB_PRIVACY_URL: 'privacy page' })).toEqual([
      'SVC_SUMSUB_PRIVACY_URL must be an http(s) URL',
    ]);
  });
});
