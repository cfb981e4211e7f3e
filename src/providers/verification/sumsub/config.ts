/**
 * Settings of the Sumsub adapter, read and validated with the rest of the configuration
 * (src/config.ts lists every problem and the server exits 78). See docs/going-live-sumsub.md.
 */
import { createHash } from 'node:crypto';
import { ConfigReader, type Env } from '../../../shared/config-reader';
import type { ProviderSelection } from '../../definition';
import { BUILTIN_LEVELS } from '../levels';
import type { ConsentDisclosure } from '../port';

export interface SumsubConfig {
  apiUrl: string;
  appToken: string;
  secretKey: string;
  webhookSecret: string;
  /** Our level name (lower case) -> Sumsub level name. Holds every built-in level. */
  levels: Record<string, string>;
  timeoutMs: number;
  maxAttempts: number;
  /** Lifetime of a WebSDK link handed to the person (a fresh one on every visit of our page). */
  websdkLinkTtlSeconds: number;
  /** The reconciliation worker re-reads an applicant when nothing was heard of it for this long. */
  reconcileAfterSeconds: number;
  /**
   * An approved subject's latest link is re-read this long after Sumsub was last heard of it
   * (`SVC_SUMSUB_RECHECK_APPROVED_SECONDS`, default a day): a later rejection whose webhook was lost
   * is found without it.
   */
  recheckApprovedSeconds: number;
  /**
   * The account's KYB flow (`SVC_SUMSUB_KYB_FLOW`): `kyb2` keeps companyInfo and its beneficiaries in
   * `fixedInfo` (https://docs.sumsub.com/reference/link-beneficiary-to-company-kyb-20), `kyb1` in `info`.
   */
  kybFlow: 'kyb1' | 'kyb2';
  /**
   * The privacy disclosure the person accepts on our hosted page before Sumsub receives any of their
   * personal data (https://docs.sumsub.com/docs/applicant-privacy-disclosures-and-consent-requirements):
   * `SVC_SUMSUB_CONSENT_TEXT`, `SVC_SUMSUB_PRIVACY_URL`; its version is a digest of both.
   */
  consent: ConsentDisclosure;
}

/** The default disclosure ({merchant} becomes the client's company name). */
export const DEFAULT_SUMSUB_CONSENT_TEXT =
  '{merchant} uses Sumsub, an identity verification provider, to verify you. When you continue, your name and email address (for a business: its name, registration number and country), the documents and photos you upload and the checks made on them are sent to Sumsub, which processes them to verify your identity on behalf of {merchant} and, where the law makes it a controller, for its own legal obligations. How Sumsub processes your personal data is explained in the privacy notice linked below.';

/** The Sumsub settings of a configuration whose verification provider is Sumsub, else null. */
export function sumsubSettings(config: { providers: ProviderSelection }): SumsubConfig | null {
  const { name, settings } = config.providers.verification;
  return name === 'sumsub' && isSumsubConfig(settings) ? settings : null;
}

function isSumsubConfig(v: unknown): v is SumsubConfig {
  return typeof v === 'object' && v !== null && 'appToken' in v && 'webhookSecret' in v;
}

/** The version recorded with an acceptance: changes whenever the text or the privacy link changes. */
export const consentVersionOf = (text: string, privacyUrl: string | null) =>
  `sha256:${createHash('sha256')
    .update(`${text}\n${privacyUrl ?? ''}`)
    .digest('hex')
    .slice(0, 16)}`;

function consent(r: ConfigReader, environment: 'sandbox' | 'production'): ConsentDisclosure {
  const text = r.raw('SVC_SUMSUB_CONSENT_TEXT') ?? DEFAULT_SUMSUB_CONSENT_TEXT;
  const privacyUrl = r.raw('SVC_SUMSUB_PRIVACY_URL') ?? null;
  // The disclosure must say how the data are processed, with the privacy notice
  // (https://docs.sumsub.com/docs/applicant-privacy-disclosures-and-consent-requirements): a
  // production deployment does not show people a disclosure without it.
  if (environment === 'production' && privacyUrl === null)
    r.problems.push('SVC_SUMSUB_PRIVACY_URL is required in production when SVC_VERIFICATION_PROVIDER=sumsub');
  if (privacyUrl !== null && !/^https?:\/\/\S+$/.test(privacyUrl))
    r.problems.push('SVC_SUMSUB_PRIVACY_URL must be an http(s) URL');
  return { text, privacyUrl, version: consentVersionOf(text, privacyUrl) };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `https://…`; plain http only for a stand-in on this machine (Sumsub refuses plain HTTP). */
function apiUrl(r: ConfigReader): string {
  const v = r.raw('SVC_SUMSUB_API_URL') ?? 'https://api.sumsub.com';
  try {
    const u = new URL(v);
    if (u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname)))
      return v.replace(/\/+$/, '');
  } catch {
    // reported below
  }
  r.problems.push('SVC_SUMSUB_API_URL must be an https URL (http only for localhost)');
  return v;
}

/** `SVC_SUMSUB_LEVELS`: comma-separated `our-level=sumsub-level`; every built-in level must be mapped. */
export function parseLevelMap(value: string | undefined, problems: string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const part of (value ?? '').split(',')) {
    if (!part.trim()) continue;
    const m = /^\s*([^=\s][^=]*?)\s*=\s*(\S[^=]*?)\s*$/.exec(part);
    if (!m) {
      problems.push(`SVC_SUMSUB_LEVELS: "${part.trim()}" is not of the form our-level=sumsub-level`);
      continue;
    }
    map[m[1]!.toLowerCase()] = m[2]!;
  }
  const missing = [...BUILTIN_LEVELS.kyc, ...BUILTIN_LEVELS.kyb].map((l) => l.name).filter((n) => !map[n]);
  if (missing.length)
    problems.push(`SVC_SUMSUB_LEVELS must map every built-in level (missing: ${missing.join(', ')})`);
  return map;
}

function kybFlow(r: ConfigReader): 'kyb1' | 'kyb2' {
  const v = r.raw('SVC_SUMSUB_KYB_FLOW') ?? 'kyb2';
  if (v === 'kyb1' || v === 'kyb2') return v;
  r.problems.push(`SVC_SUMSUB_KYB_FLOW must be kyb1 or kyb2 (got "${v}")`);
  return 'kyb2';
}

/** The Sumsub settings (SVC_SUMSUB_*), on the service's config reader (problems listed with the rest). */
export function readSumsubConfig(
  r: ConfigReader,
  environment: 'sandbox' | 'production' = 'sandbox',
): SumsubConfig {
  const required = (name: string) => {
    const v = r.raw(name);
    if (!v) r.problems.push(`${name} is required when SVC_VERIFICATION_PROVIDER=sumsub`);
    return v ?? '';
  };
  const url = apiUrl(r);
  const appToken = required('SVC_SUMSUB_APP_TOKEN');
  // Sandbox and production share api.sumsub.com; the token decides the mode, and sandbox tokens
  // start `sbx:` (docs/vendors/sumsub.md, "Request signing"). A production deployment on a sandbox
  // token would "verify" people with test documents and sandbox decisions.
  if (environment === 'production' && appToken.startsWith('sbx:'))
    r.problems.push(
      'SVC_SUMSUB_APP_TOKEN is a Sumsub sandbox token (it starts with "sbx:"): a production deployment needs a production app token',
    );
  return {
    apiUrl: url,
    appToken,
    secretKey: required('SVC_SUMSUB_SECRET_KEY'),
    webhookSecret: required('SVC_SUMSUB_WEBHOOK_SECRET'),
    levels: parseLevelMap(r.raw('SVC_SUMSUB_LEVELS'), r.problems),
    timeoutMs: r.int('SVC_SUMSUB_TIMEOUT_MS', 10000, 100, 60000),
    maxAttempts: r.int('SVC_SUMSUB_MAX_ATTEMPTS', 3, 1, 10),
    websdkLinkTtlSeconds: r.int('SVC_SUMSUB_WEBSDK_LINK_TTL_SECONDS', 1800, 60, 86400),
    reconcileAfterSeconds: r.int('SVC_SUMSUB_RECONCILE_AFTER_SECONDS', 3600, 10, 30 * 86400),
    recheckApprovedSeconds: r.int('SVC_SUMSUB_RECHECK_APPROVED_SECONDS', 86400, 60, 30 * 86400),
    kybFlow: kybFlow(r),
    consent: consent(r, environment),
  };
}

/** `readSumsubConfig` over raw variables, adding its problems to `problems` (for tools and tests). */
export function loadSumsubConfig(
  env: Env,
  problems: string[],
  environment: 'sandbox' | 'production' = 'sandbox',
): SumsubConfig {
  const r = new ConfigReader(env);
  const config = readSumsubConfig(r, environment);
  problems.push(...r.problems);
  return config;
}
