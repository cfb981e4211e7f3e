/**
 * The Token.io settings (`SVC_TOKENIO_*`), read and checked with the rest of the configuration so
 * a bad deployment stops at start with every problem listed. See docs/going-live-tokenio.md.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import type { ProviderSelection } from '../../definition';

/** What this module needs of src/config.ts's reader (structural: the adapter does not import the config module). */
export interface Reader {
  readonly problems: string[];
  optional(name: string): string | null;
  url(name: string, fallback: string | null, protocols: string[]): string | null;
  int(name: string, fallback: number, min: number, max: number): number;
  bool(name: string, fallback: boolean): boolean;
}

export type TokenioAuth =
  | { kind: 'api_key'; apiKey: string }
  | { kind: 'jwt'; keyId: string; privateKey: KeyObject; alg: 'EdDSA' | 'ES256' | 'RS256' };

export interface TokenioConfig {
  apiUrl: string;
  memberId: string;
  auth: TokenioAuth;
  /** The random last segment of our webhook URL (Token.io notifications are not signed). */
  webhookPathSecret: string;
  /** PUT /webhook/config with our URL at start (replaces the member's webhook configuration). */
  registerWebhook: boolean;
  timeoutMs: number;
  maxAttempts: number;
  maxRetryAfterMs: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  /** How long bank choice waits for Token.io's redirect URL when the first answer has none. */
  redirectWaitMs: number;
  banksCacheSeconds: number;
  /** Banks offered on the checkout: only these countries (empty: all). */
  bankCountries: string[];
  reconcile: { afterSeconds: number; intervalSeconds: number; maxIntervalSeconds: number; pollMs: number };
  subTppPollSeconds: number;
  /** Activated Sub-TPPs are all read again this often, so a later `DEACTIVATED` stops new payments. */
  subTppRereadSeconds: number;
  /** Authorized VRP consents are all read again this often, so a revocation at the payer's bank is seen before the next charge. */
  consentRereadSeconds: number;
  /**
   * A payment that ended without a final status (money may have moved) is still read every
   * `intervalSeconds` for `days` days after it ended, so a late completion is seen.
   */
  review: { intervalSeconds: number; days: number };
  /**
   * VRP mandates (recurring payments). Token.io's VRP is sweeping (`OBL_SWEEPING`: a person moving
   * money between their own accounts); paying a merchant is commercial VRP, which must be agreed
   * with Token.io and the banks first (https://docs.token.io/products/tpp/vrp/vrp-intro). Off by
   * default in production; the scheme and risk.paymentContextCode sent are settings.
   */
  vrp: { enabled: boolean; scheme: string; paymentContextCode: string | null };
  /**
   * `risk.paymentContextCode` of single payments (reference `Risk`, `PaymentContextCode`: "We
   * recommend that the TPP populates this field"); null sends none (SVC_TOKENIO_PAYMENT_CONTEXT_CODE=none).
   */
  paymentContextCode: string | null;
  /**
   * Consent under Token.io's licence (https://docs.token.io/products/tpp/integration-considerations/user-consent-collection):
   * `ours` shows the sentence and the Terms link on our pages and sends pispConsentAccepted: true;
   * `hosted` sends false and Token.io's hosted page collects it.
   */
  consent: { collect: 'ours' | 'hosted'; text: string; termsLead: string; termsUrl: string | null };
  /**
   * Refunds (docs/vendors/tokenio.md, "Refunds"). `enabled` (SVC_TOKENIO_REFUNDS_ENABLED): refunds
   * go through Token.io (POST /refunds); off by default in production until Token.io confirms in
   * writing that payments paid straight to the opco's own account can be refunded (Token.io documents
   * refunds as debits from a settlement account). `returnRefundAccount`: payments ask banks that
   * support it (`supportsReturnRefundAccount`) for the payer's account, with Token.io's amended
   * consent sentence `consentText` and Terms lead `termsLead` on our pages (only where the account
   * is asked for), next to our privacy notice (SVC_PRIVACY_NOTICE_URL). The sealed account is
   * erased `retentionDays` after the payment (SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS).
   */
  refunds: {
    enabled: boolean;
    returnRefundAccount: boolean;
    consentText: string;
    termsLead: string;
    privacyNoticeUrl: string | null;
    retentionDays: number;
  };
}

/** The Token.io settings of a configuration whose bank provider is Token.io, else null. */
export function tokenioSettings(config: { providers: ProviderSelection }): TokenioConfig | null {
  const { name, settings } = config.providers.bank;
  return name === 'tokenio' && isTokenioConfig(settings) ? settings : null;
}

function isTokenioConfig(v: unknown): v is TokenioConfig {
  return typeof v === 'object' && v !== null && 'webhookPathSecret' in v && 'memberId' in v;
}

/** The public path Token.io posts notifications to (PUT /webhook/config); the last segment is the path secret. */
export const TOKENIO_WEBHOOK_PATH = '/api/v1/providers/tokenio/webhook';

/** The URL to register with Token.io (PUT /webhook/config). */
export function tokenioWebhookUrl(
  publicUrl: string,
  config: Pick<TokenioConfig, 'webhookPathSecret'>,
): string {
  return `${publicUrl}${TOKENIO_WEBHOOK_PATH}/${config.webhookPathSecret}`;
}

/** Token.io's consent sentence for payments ("[TPP name]" becomes {beneficiary}). */
export const DEFAULT_CONSENT_TEXT =
  "You can use Token.io's payment service to make a secure payment directly from your bank account to the benefit of {beneficiary}.";

/**
 * Token.io's consent when the payment asks the bank for the payer's account (`returnRefundAccount`),
 * word for word from the same page ("PIS with returnRefundAccount consent"; "Token's", "the [TPP name]").
 */
export const DEFAULT_CONSENT_REFUND_TEXT =
  "You can use Token's payment service to make a secure payment directly from your bank account to the benefit of the {beneficiary}. We will ask your bank to share your account details. We will only use these details when necessary such as processing a refund request.";

/** The words before the Terms link in that variant, word for word ("Token's service"). */
export const DEFAULT_CONSENT_REFUND_TERMS_LEAD =
  "The terms governing your use of Token's service can be found at";

/**
 * Token.io's prescribed words before the link to its Terms & Conditions
 * (https://docs.token.io/products/tpp/integration-considerations/user-consent-collection).
 */
export const DEFAULT_CONSENT_TERMS_LEAD =
  "The terms governing your use of Token.io's service can be found at";

/** Reference `PaymentContextCode` (the Risk object of VrpConsentInitiation). */
export const PAYMENT_CONTEXT_CODES = [
  'BILLING_GOODS_AND_SERVICES_IN_ADVANCE',
  'BILLING_GOODS_AND_SERVICES_IN_ARREARS',
  'PISP_PAYEE',
  'ECOMMERCE_MERCHANT_INITIATED_PAYMENT',
  'FACE_TO_FACE_POINT_OF_SALE',
  'TRANSFER_TO_SELF',
  'TRANSFER_TO_THIRD_PARTY',
] as const;

/** Token.io's production API: JWT only (docs "Authentication keys and API signing"). */
const PRODUCTION_HOST = 'api.token.io';
const PRODUCTION_ORIGIN = `https://${PRODUCTION_HOST}`;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function readPrivateKey(r: Reader, raw: string): { key: KeyObject; alg: 'EdDSA' | 'ES256' | 'RS256' } | null {
  let pem = raw.replace(/\\n/g, '\n');
  if (!pem.includes('BEGIN')) {
    try {
      pem = fs.readFileSync(pem, 'utf8');
    } catch {
      r.problems.push('SVC_TOKENIO_PRIVATE_KEY must be a PEM private key or the path of a PEM file');
      return null;
    }
  }
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType === 'ed25519') return { key, alg: 'EdDSA' };
    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
      return { key, alg: 'ES256' };
    // RSA keys are among those Token.io enrols (its authentication page: RSA or ECDSA); 2048 bits at least.
    if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048)
      return { key, alg: 'RS256' };
    r.problems.push(
      'SVC_TOKENIO_PRIVATE_KEY must be an Ed25519, P-256 (ES256) or RSA of 2048 bits or more (RS256) key',
    );
  } catch {
    r.problems.push('SVC_TOKENIO_PRIVATE_KEY is not a readable PEM private key');
  }
  return null;
}

/**
 * Production talks to Token.io's production API only (its servers entry: https://api.token.io). A
 * stand-in on loopback is allowed there only with SVC_TOKENIO_ALLOW_STANDIN=true, a test setting.
 */
function checkProductionUrl(r: Reader, apiUrl: string): void {
  const u = new URL(apiUrl);
  const allowStandin = r.bool('SVC_TOKENIO_ALLOW_STANDIN', false);
  if (allowStandin && LOOPBACK.has(u.hostname)) return;
  const exact =
    u.protocol === 'https:' && u.host === PRODUCTION_HOST && /^\/?$/.test(u.pathname) && !u.search;
  if (!exact)
    r.problems.push(
      `SVC_TOKENIO_API_URL must be ${PRODUCTION_ORIGIN} in production (a loopback stand-in only with SVC_TOKENIO_ALLOW_STANDIN=true, for tests)`,
    );
}

export function readTokenioConfig(
  r: Reader,
  environment: 'sandbox' | 'production' = 'sandbox',
): TokenioConfig | null {
  const required = (name: string): string => {
    const v = r.optional(name);
    if (!v) r.problems.push(`${name} is required when SVC_BANK_PROVIDER=tokenio`);
    return v ?? '';
  };
  const apiUrl = r.url('SVC_TOKENIO_API_URL', null, ['https:', 'http:']);
  if (!apiUrl) required('SVC_TOKENIO_API_URL');
  else if (new URL(apiUrl).protocol === 'http:' && !LOOPBACK.has(new URL(apiUrl).hostname))
    r.problems.push('SVC_TOKENIO_API_URL must be https (http only for a local stand-in on loopback)');
  if (apiUrl && environment === 'production') checkProductionUrl(r, apiUrl);
  const memberId = required('SVC_TOKENIO_MEMBER_ID');
  const apiKey = r.optional('SVC_TOKENIO_API_KEY');
  const keyId = r.optional('SVC_TOKENIO_KEY_ID');
  const privateKey = r.optional('SVC_TOKENIO_PRIVATE_KEY');
  let auth: TokenioAuth | null = null;
  if (apiKey && (keyId || privateKey))
    r.problems.push(
      'Set either SVC_TOKENIO_API_KEY or SVC_TOKENIO_KEY_ID with SVC_TOKENIO_PRIVATE_KEY, not both',
    );
  else if (apiKey) {
    if (apiUrl && new URL(apiUrl).hostname === PRODUCTION_HOST)
      r.problems.push(
        'Token.io production (api.token.io) requires JWT authentication: set SVC_TOKENIO_KEY_ID and SVC_TOKENIO_PRIVATE_KEY instead of SVC_TOKENIO_API_KEY',
      );
    auth = { kind: 'api_key', apiKey };
  } else if (keyId || privateKey) {
    if (!keyId || !privateKey)
      r.problems.push('SVC_TOKENIO_KEY_ID and SVC_TOKENIO_PRIVATE_KEY must be set together');
    const k = keyId && privateKey ? readPrivateKey(r, privateKey) : null;
    if (keyId && k) auth = { kind: 'jwt', keyId, privateKey: k.key, alg: k.alg };
  } else
    r.problems.push(
      'Token.io credentials are required: SVC_TOKENIO_API_KEY (sandbox) or SVC_TOKENIO_KEY_ID with SVC_TOKENIO_PRIVATE_KEY',
    );
  const webhookPathSecret = required('SVC_TOKENIO_WEBHOOK_SECRET');
  if (webhookPathSecret && !/^[A-Za-z0-9_-]{16,128}$/.test(webhookPathSecret))
    r.problems.push(
      'SVC_TOKENIO_WEBHOOK_SECRET must be 16-128 letters, digits, - or _ (it is a URL path segment)',
    );
  const countries = (r.optional('SVC_TOKENIO_BANK_COUNTRIES') ?? '')
    .split(',')
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);
  if (countries.some((c) => !/^[A-Z]{2}$/.test(c)))
    r.problems.push('SVC_TOKENIO_BANK_COUNTRIES must be comma-separated ISO 3166 alpha-2 codes, e.g. GB,IE');
  const config: TokenioConfig = {
    apiUrl: apiUrl ?? '',
    memberId,
    auth: auth ?? { kind: 'api_key', apiKey: '' },
    webhookPathSecret,
    registerWebhook: r.bool('SVC_TOKENIO_REGISTER_WEBHOOK', false),
    timeoutMs: r.int('SVC_TOKENIO_TIMEOUT_MS', 10_000, 2_000, 60_000),
    maxAttempts: r.int('SVC_TOKENIO_MAX_ATTEMPTS', 3, 1, 10),
    maxRetryAfterMs: r.int('SVC_TOKENIO_MAX_RETRY_AFTER_SECONDS', 5, 0, 120) * 1000,
    breakerFailures: r.int('SVC_TOKENIO_BREAKER_FAILURES', 5, 1, 1000),
    breakerCooldownMs: r.int('SVC_TOKENIO_BREAKER_COOLDOWN_SECONDS', 30, 1, 3600) * 1000,
    redirectWaitMs: r.int('SVC_TOKENIO_REDIRECT_WAIT_MS', 5_000, 0, 60_000),
    banksCacheSeconds: r.int('SVC_TOKENIO_BANKS_CACHE_SECONDS', 3600, 0, 7 * 86400),
    bankCountries: countries,
    reconcile: {
      afterSeconds: r.int('SVC_TOKENIO_RECONCILE_AFTER_SECONDS', 120, 1, 86400),
      intervalSeconds: r.int('SVC_TOKENIO_RECONCILE_INTERVAL_SECONDS', 60, 1, 86400),
      maxIntervalSeconds: r.int('SVC_TOKENIO_RECONCILE_MAX_INTERVAL_SECONDS', 7200, 1, 7 * 86400),
      pollMs: r.int('SVC_TOKENIO_RECONCILE_POLL_MS', 5_000, 50, 3_600_000),
    },
    subTppPollSeconds: r.int('SVC_TOKENIO_SUBTPP_POLL_SECONDS', 300, 1, 86400),
    subTppRereadSeconds: r.int('SVC_TOKENIO_SUBTPP_REREAD_SECONDS', 86400, 60, 7 * 86400),
    consentRereadSeconds: r.int('SVC_TOKENIO_CONSENT_REREAD_SECONDS', 86400, 60, 7 * 86400),
    consent: {
      collect: (r.optional('SVC_TOKENIO_CONSENT') ?? 'ours') as 'ours' | 'hosted',
      text: r.optional('SVC_TOKENIO_CONSENT_TEXT') ?? DEFAULT_CONSENT_TEXT,
      termsLead: r.optional('SVC_TOKENIO_CONSENT_TERMS_TEXT') ?? DEFAULT_CONSENT_TERMS_LEAD,
      termsUrl: r.url('SVC_TOKENIO_TERMS_URL', null, ['https:']),
    },
    refunds: {
      enabled: r.bool('SVC_TOKENIO_REFUNDS_ENABLED', environment !== 'production'),
      returnRefundAccount: r.bool('SVC_TOKENIO_RETURN_REFUND_ACCOUNT', environment !== 'production'),
      consentText: r.optional('SVC_TOKENIO_CONSENT_REFUND_TEXT') ?? DEFAULT_CONSENT_REFUND_TEXT,
      termsLead: DEFAULT_CONSENT_REFUND_TERMS_LEAD,
      privacyNoticeUrl: r.url('SVC_PRIVACY_NOTICE_URL', null, ['https:']),
      retentionDays: r.int('SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS', 180, 1, 3650),
    },
    vrp: {
      enabled: r.bool('SVC_TOKENIO_VRP_ENABLED', environment !== 'production'),
      scheme: r.optional('SVC_TOKENIO_VRP_SCHEME') ?? 'OBL_SWEEPING',
      paymentContextCode: r.optional('SVC_TOKENIO_VRP_PAYMENT_CONTEXT_CODE') ?? 'TRANSFER_TO_SELF',
    },
    paymentContextCode:
      r.optional('SVC_TOKENIO_PAYMENT_CONTEXT_CODE') ?? 'BILLING_GOODS_AND_SERVICES_IN_ADVANCE',
    review: {
      // Token.io's reference suggests a poll every 120 minutes for a payment still processing.
      intervalSeconds: r.int('SVC_TOKENIO_REVIEW_INTERVAL_SECONDS', 7200, 60, 7 * 86400),
      days: r.int('SVC_TOKENIO_REVIEW_DAYS', 31, 0, 90),
    },
  };
  if (!['ours', 'hosted'].includes(config.consent.collect))
    r.problems.push('SVC_TOKENIO_CONSENT must be ours or hosted');
  else if (config.consent.collect === 'ours') {
    if (!config.consent.text.includes('{beneficiary}'))
      r.problems.push('SVC_TOKENIO_CONSENT_TEXT must name the beneficiary with {beneficiary}');
    if (config.refunds.returnRefundAccount && !config.refunds.consentText.includes('{beneficiary}'))
      r.problems.push('SVC_TOKENIO_CONSENT_REFUND_TEXT must name the beneficiary with {beneficiary}');
    if (
      config.refunds.returnRefundAccount &&
      !config.refunds.privacyNoticeUrl &&
      environment === 'production'
    )
      r.problems.push(
        'SVC_PRIVACY_NOTICE_URL is required in production with SVC_TOKENIO_RETURN_REFUND_ACCOUNT=true (the payer must be shown how their account details are used; we are the data controller)',
      );
    if (!config.consent.termsUrl && environment === 'production')
      r.problems.push(
        "SVC_TOKENIO_TERMS_URL is required in production with SVC_TOKENIO_CONSENT=ours (the payer must be shown Token.io's Terms)",
      );
  }
  if (!/^[A-Z][A-Z0-9_]{1,63}$/.test(config.vrp.scheme))
    r.problems.push('SVC_TOKENIO_VRP_SCHEME must be a Token.io VRP scheme name such as OBL_SWEEPING');
  const code = config.vrp.paymentContextCode;
  if (code === 'none') config.vrp.paymentContextCode = null;
  else if (code && !(PAYMENT_CONTEXT_CODES as readonly string[]).includes(code))
    r.problems.push(
      `SVC_TOKENIO_VRP_PAYMENT_CONTEXT_CODE must be one of ${PAYMENT_CONTEXT_CODES.join(', ')} or none`,
    );
  const single = config.paymentContextCode;
  if (single === 'none') config.paymentContextCode = null;
  else if (single && !(PAYMENT_CONTEXT_CODES as readonly string[]).includes(single))
    r.problems.push(
      `SVC_TOKENIO_PAYMENT_CONTEXT_CODE must be one of ${PAYMENT_CONTEXT_CODES.join(', ')} or none`,
    );
  if (config.reconcile.maxIntervalSeconds < config.reconcile.intervalSeconds)
    r.problems.push(
      'SVC_TOKENIO_RECONCILE_MAX_INTERVAL_SECONDS must be at least SVC_TOKENIO_RECONCILE_INTERVAL_SECONDS',
    );
  return config;
}
