/**
 * Settings of the Chainalysis screening adapters, read and validated with the rest of the
 * configuration (src/config.ts lists every problem and the server exits 78). Two providers share
 * them (docs/vendors/chainalysis.md, docs/going-live-chainalysis.md):
 *
 * - `SVC_SCREENING_PROVIDER=chainalysis`: the Entity Risking API (address risk, cluster, exposures),
 *   with the free Sanctions API as its fallback when `SVC_CHAINALYSIS_SANCTIONS_API_KEY` is set.
 * - `SVC_SCREENING_PROVIDER=chainalysis-sanctions`: the free Sanctions API alone (sanctions only:
 *   a clean answer is `unknown`, never `low`).
 */
import { ConfigReader, type Env } from '../../../shared/config-reader';

export interface ChainalysisApiSettings {
  /** Base URL: https, or http on this machine only (a stand-in). */
  baseUrl: string;
  apiKey: string;
}

export interface ChainalysisConfig {
  /** The Entity Risking API; null for `chainalysis-sanctions`. */
  risk: ChainalysisApiSettings | null;
  /** The Sanctions API: the fallback of `chainalysis`, the whole of `chainalysis-sanctions`; null when not set. */
  sanctions: ChainalysisApiSettings | null;
  timeoutMs: number;
  /** Attempts inside one call (retry-safe GETs), before the call counts as one unavailable answer. */
  maxAttempts: number;
  maxRetryAfterMs: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  /** Unavailable answers (5xx, timeouts) before a pending screening fails with `Screening provider error`. */
  maxUnavailableAttempts: number;
  /** Seconds between retries of a pending screening (the last value repeats). */
  retryBackoffSeconds: number[];
  /** Longest Retry-After honoured for a pending screening (a quota's reset). */
  maxRetryAfterSeconds: number;
  /** Longest a screening stays pending (429s, unfinished answers) before it fails with `Screening provider error`. */
  maxPendingSeconds: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export const DEFAULT_RISK_URL = 'https://api.chainalysis.com/api/risk';
export const DEFAULT_SANCTIONS_URL = 'https://public.chainalysis.com/api/v1';

function baseUrl(r: ConfigReader, name: string, fallback: string): string {
  const v = (r.raw(name) ?? fallback).replace(/\/+$/, '');
  try {
    const u = new URL(v);
    if (!(u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname))))
      r.problems.push(`${name} must be an https URL (http only for localhost)`);
  } catch {
    r.problems.push(`${name} must be an https URL (http only for localhost)`);
  }
  return v;
}

function backoff(r: ConfigReader): number[] {
  const raw = r.raw('SVC_CHAINALYSIS_RETRY_BACKOFF_SECONDS') ?? '30,60,300,900,1800';
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.length === 0 || values.some((n) => !Number.isInteger(n) || n < 1 || n > 86400)) {
    r.problems.push(
      'SVC_CHAINALYSIS_RETRY_BACKOFF_SECONDS must be a comma-separated list of whole seconds (1-86400)',
    );
    return [30, 60, 300, 900, 1800];
  }
  return values;
}

function common(r: ConfigReader) {
  return {
    timeoutMs: r.int('SVC_CHAINALYSIS_TIMEOUT_MS', 5000, 100, 60000),
    maxAttempts: r.int('SVC_CHAINALYSIS_MAX_ATTEMPTS', 2, 1, 10),
    maxRetryAfterMs: r.int('SVC_CHAINALYSIS_MAX_RETRY_AFTER_MS', 2000, 0, 60000),
    breakerFailures: r.int('SVC_CHAINALYSIS_BREAKER_FAILURES', 5, 1, 100),
    breakerCooldownMs: r.int('SVC_CHAINALYSIS_BREAKER_COOLDOWN_MS', 30000, 1000, 600000),
    maxUnavailableAttempts: r.int('SVC_CHAINALYSIS_MAX_UNAVAILABLE_ATTEMPTS', 6, 1, 50),
    retryBackoffSeconds: backoff(r),
    maxRetryAfterSeconds: r.int('SVC_CHAINALYSIS_MAX_RETRY_AFTER_SECONDS', 3600, 1, 86400),
    maxPendingSeconds: r.int('SVC_CHAINALYSIS_MAX_PENDING_SECONDS', 86400, 60, 604800),
  };
}

function sanctionsApi(r: ConfigReader, required: boolean): ChainalysisApiSettings | null {
  const apiKey = r.raw('SVC_CHAINALYSIS_SANCTIONS_API_KEY');
  if (!apiKey) {
    if (required)
      r.problems.push(
        'SVC_CHAINALYSIS_SANCTIONS_API_KEY is required when SVC_SCREENING_PROVIDER=chainalysis-sanctions',
      );
    return null;
  }
  return { baseUrl: baseUrl(r, 'SVC_CHAINALYSIS_SANCTIONS_URL', DEFAULT_SANCTIONS_URL), apiKey };
}

/** SVC_SCREENING_PROVIDER=chainalysis: the Entity Risking API, with the Sanctions API as fallback when keyed. */
export function readChainalysisConfig(r: ConfigReader): ChainalysisConfig {
  const apiKey = r.raw('SVC_CHAINALYSIS_API_KEY');
  if (!apiKey) r.problems.push('SVC_CHAINALYSIS_API_KEY is required when SVC_SCREENING_PROVIDER=chainalysis');
  return {
    risk: { baseUrl: baseUrl(r, 'SVC_CHAINALYSIS_API_URL', DEFAULT_RISK_URL), apiKey: apiKey ?? '' },
    sanctions: sanctionsApi(r, false),
    ...common(r),
  };
}

/** SVC_SCREENING_PROVIDER=chainalysis-sanctions: the free Sanctions API alone. */
export function readChainalysisSanctionsConfig(r: ConfigReader): ChainalysisConfig {
  return { risk: null, sanctions: sanctionsApi(r, true), ...common(r) };
}

/** A reader over raw variables, adding its problems to `problems` (for tools and tests). */
export function loadChainalysisConfig(
  env: Env,
  problems: string[],
  which: 'chainalysis' | 'chainalysis-sanctions' = 'chainalysis',
): ChainalysisConfig {
  const r = new ConfigReader(env);
  const config = which === 'chainalysis' ? readChainalysisConfig(r) : readChainalysisSanctionsConfig(r);
  problems.push(...r.problems);
  return config;
}
