/**
 * Settings of the Documenso adapter (SVC_ESIGN_PROVIDER=documenso), read and validated with the rest
 * of the configuration (src/config.ts lists every problem and the server exits 78). See
 * docs/going-live-documenso.md and docs/vendors/documenso.md.
 */
import { ConfigReader, type Env } from '../../../shared/config-reader';

export interface DocumensoConfig {
  /** The v2 API base, e.g. https://app.documenso.com/api/v2 or a self-hosted https://sign.example.com/api/v2. */
  apiUrl: string;
  /** The API token (sent as the `Authorization` header value). */
  apiKey: string;
  /** The secret set on the Documenso webhook; it arrives in `X-Documenso-Secret`. */
  webhookSecret: string;
  timeoutMs: number;
  maxAttempts: number;
  maxRetryAfterMs: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  /** A live envelope not read for this long is read again (a lost webhook is caught up). */
  reconcileSeconds: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** A webhook secret shorter than this is guessable; Documenso sends an empty header when none is set. */
export const MIN_WEBHOOK_SECRET_LENGTH = 24;

/** `https://…/api/v2`; plain http only for a stand-in on this machine. */
function apiUrl(r: ConfigReader): string {
  const v = (r.raw('SVC_DOCUMENSO_API_URL') ?? 'https://app.documenso.com/api/v2').replace(/\/+$/, '');
  try {
    const u = new URL(v);
    const httpsOrLocal = u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname));
    if (!httpsOrLocal)
      r.problems.push('SVC_DOCUMENSO_API_URL must be an https URL (http only for localhost)');
    else if (!/\/api\/v2$/.test(u.pathname))
      r.problems.push('SVC_DOCUMENSO_API_URL must end with /api/v2 (the adapter speaks the v2 API)');
  } catch {
    r.problems.push('SVC_DOCUMENSO_API_URL must be an https URL (http only for localhost)');
  }
  return v;
}

/** The Documenso settings (SVC_DOCUMENSO_*), on the service's config reader (problems listed with the rest). */
export function readDocumensoConfig(
  r: ConfigReader,
  _environment: 'sandbox' | 'production' = 'sandbox',
): DocumensoConfig {
  const required = (name: string) => {
    const v = r.raw(name);
    if (!v) r.problems.push(`${name} is required when SVC_ESIGN_PROVIDER=documenso`);
    return v ?? '';
  };
  const url = apiUrl(r);
  const apiKey = required('SVC_DOCUMENSO_API_KEY');
  const webhookSecret = required('SVC_DOCUMENSO_WEBHOOK_SECRET');
  // Documenso authenticates its webhooks by this secret alone (no signature over the body).
  if (webhookSecret && webhookSecret.length < MIN_WEBHOOK_SECRET_LENGTH)
    r.problems.push(
      `SVC_DOCUMENSO_WEBHOOK_SECRET must be at least ${MIN_WEBHOOK_SECRET_LENGTH} characters (it is the only proof a notification comes from Documenso)`,
    );
  return {
    apiUrl: url,
    apiKey,
    webhookSecret,
    timeoutMs: r.int('SVC_DOCUMENSO_TIMEOUT_MS', 10000, 100, 60000),
    maxAttempts: r.int('SVC_DOCUMENSO_MAX_ATTEMPTS', 3, 1, 10),
    maxRetryAfterMs: r.int('SVC_DOCUMENSO_MAX_RETRY_AFTER_MS', 5000, 0, 60000),
    breakerFailures: r.int('SVC_DOCUMENSO_BREAKER_FAILURES', 5, 1, 100),
    breakerCooldownMs: r.int('SVC_DOCUMENSO_BREAKER_COOLDOWN_MS', 30000, 1000, 600000),
    reconcileSeconds: r.int('SVC_DOCUMENSO_RECONCILE_SECONDS', 600, 30, 86400),
  };
}

/** `readDocumensoConfig` over raw variables, adding its problems to `problems` (for tools and tests). */
export function loadDocumensoConfig(
  env: Env,
  problems: string[],
  environment: 'sandbox' | 'production' = 'sandbox',
): DocumensoConfig {
  const r = new ConfigReader(env);
  const config = readDocumensoConfig(r, environment);
  problems.push(...r.problems);
  return config;
}
