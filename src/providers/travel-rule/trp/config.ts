/**
 * Settings of the TRP adapter (SVC_TRAVEL_RULE_PROVIDER=trp), read and validated with the rest of
 * the configuration (every problem listed at start, exit 78). See docs/going-live-trp.md and
 * docs/vendors/trp.md ("Discovery": TRP finds the beneficiary VASP by a travel address handed over
 * by the beneficiary; our API names a wallet address, so a configured directory says which VASP
 * holds which address and where its TRP inquiry endpoint is).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { CHAINS, type Chain, normalizeAddress } from '../../../shared/chain-addresses';
import { ConfigReader, type Env } from '../../../shared/config-reader';
import { decodeTravelAddress, TravelAddressError } from './travel-address';

/** One counterparty VASP we exchange travel-rule data with over TRP. */
export interface TrpVasp {
  vasp_id: string;
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** ISO 17442 LEI; TRP identifies VASPs by it (the originating VASP's nationalIdentifier, type LEIX). */
  lei: string;
  /**
   * Its TRP inquiry endpoint (https; http only on loopback): configured as `inquiry_url`, or decoded
   * from the travel address it gave us (`travel_address`; both given, they must name the same URL).
   */
  inquiry_url: string;
  /** The wallet addresses it has told us it holds (discovery by address). */
  addresses: { chain: Chain; address: string }[];
}

/** How one of our assets travels in TRP: the chain it is on, its decimals, its Digital Token Identifier. */
export interface TrpAsset {
  asset: string;
  chain: Chain;
  decimals: number;
  dti: string;
}

export interface TrpConfig {
  /** The public base of our TRP endpoints as counterparties reach them, e.g. https://trp.example.com. */
  publicUrl: string;
  directory: TrpVasp[];
  assets: TrpAsset[];
  /** Keys the per-transfer callback URLs we hand out (HMAC-SHA256): a counterparty can only call back the URL it was given. */
  callbackSecret: string;
  timeoutMs: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  /** Waits (seconds) before each further delivery attempt of an inquiry the counterparty could not take. */
  retrySeconds: number[];
  /**
   * Our client certificate for the counterparties' mTLS (PEM, read at start), and CA certificates
   * trusted for their server certificates besides the system roots. Required in production.
   */
  tls: { cert: string; key: string; ca?: string } | null;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** ISO 17442: 18 alphanumerics and 2 check digits. */
export const LEI_PATTERN = /^[A-Z0-9]{18}[0-9]{2}$/;
const COUNTRY = /^[A-Z]{2}$/;
const VASP_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** A DTI is 9 characters of the ISO 24165 alphabet. */
const DTI_PATTERN = /^[0-9B-DF-HJ-NP-TV-Z]{9}$/;
export const MIN_CALLBACK_SECRET_LENGTH = 32;

/** https, or http on this machine only (a stand-in or a test's second instance). */
export function httpsOrLoopback(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname));
  } catch {
    return false;
  }
}

/** The same inquiry endpoint: origin and path equal (a travel address's `t=i` aside). */
function sameEndpoint(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.origin === y.origin && x.pathname.replace(/\/+$/, '') === y.pathname.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

function readDirectory(r: ConfigReader): TrpVasp[] {
  const file = r.raw('SVC_TRP_DIRECTORY_FILE');
  const inline = r.raw('SVC_TRP_DIRECTORY');
  let text: string | undefined = inline;
  if (file)
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      r.problems.push('SVC_TRP_DIRECTORY_FILE cannot be read');
      return [];
    }
  if (!text) {
    r.problems.push(
      'SVC_TRP_DIRECTORY_FILE or SVC_TRP_DIRECTORY is required when SVC_TRAVEL_RULE_PROVIDER=trp',
    );
    return [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    r.problems.push('the TRP directory is not valid JSON');
    return [];
  }
  if (!Array.isArray(parsed)) {
    r.problems.push('the TRP directory must be a JSON array of VASPs');
    return [];
  }
  const out: TrpVasp[] = [];
  const ids = new Set<string>();
  parsed.forEach((v: Record<string, unknown>, i) => {
    const at = `TRP directory entry ${i}`;
    const str = (k: string) => (typeof v?.[k] === 'string' ? (v[k] as string) : '');
    const vasp_id = str('vasp_id');
    // The id is part of the inquiry URL we give that VASP (`i.<vasp_id>.<mac>`).
    if (!VASP_ID.test(vasp_id) || ids.has(vasp_id))
      r.problems.push(`${at}: vasp_id must be 1-64 letters, digits, - or _, and not repeated`);
    ids.add(vasp_id);
    if (!str('name')) r.problems.push(`${at}: name is required`);
    if (!COUNTRY.test(str('country'))) r.problems.push(`${at}: country must be ISO 3166-1 alpha-2`);
    if (!LEI_PATTERN.test(str('lei'))) r.problems.push(`${at}: lei must be a 20-character LEI`);
    let inquiryUrl = str('inquiry_url');
    const travelAddress = str('travel_address');
    if (travelAddress) {
      // TRP 3.1+: the counterparty may hand us a travel address instead of its inquiry URL.
      try {
        const decoded = decodeTravelAddress(travelAddress);
        if (inquiryUrl && !sameEndpoint(inquiryUrl, decoded))
          r.problems.push(
            `${at}: travel_address decodes to ${decoded}, which is not its inquiry_url (give one, or both for the same URL)`,
          );
        inquiryUrl ||= decoded;
      } catch (err) {
        r.problems.push(
          `${at}: travel_address is not a TRP travel address: ${err instanceof TravelAddressError ? err.message : 'unreadable'}`,
        );
      }
    }
    // Without a travel address the inquiry URL is required; a given one must be https.
    if ((!travelAddress || str('inquiry_url')) && !httpsOrLoopback(inquiryUrl))
      r.problems.push(`${at}: inquiry_url must be an https URL (http only for localhost)`);
    const addresses: TrpVasp['addresses'] = [];
    for (const a of Array.isArray(v?.addresses) ? (v.addresses as Record<string, unknown>[]) : []) {
      const chain = CHAINS.find((c) => c === a?.chain);
      if (!chain || typeof a.address !== 'string') {
        r.problems.push(`${at}: every address needs a known chain and an address`);
        continue;
      }
      try {
        addresses.push({ chain, address: normalizeAddress(chain, a.address) });
      } catch {
        r.problems.push(`${at}: ${a.address} is not a ${chain} address`);
      }
    }
    out.push({
      vasp_id,
      name: str('name'),
      country: str('country'),
      lei: str('lei'),
      inquiry_url: inquiryUrl,
      addresses,
    });
  });
  return out;
}

/** `ASSET:chain:decimals:DTI`, comma separated, e.g. `BTC:bitcoin:8:<DTI of bitcoin>`. */
function readAssets(r: ConfigReader): TrpAsset[] {
  const v = r.raw('SVC_TRP_ASSETS');
  if (!v) {
    r.problems.push(
      'SVC_TRP_ASSETS is required when SVC_TRAVEL_RULE_PROVIDER=trp (ASSET:chain:decimals:DTI,…)',
    );
    return [];
  }
  const out: TrpAsset[] = [];
  for (const item of v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [asset = '', chainName = '', dec = '', dti = ''] = item.split(':');
    const chain = CHAINS.find((c) => c === chainName);
    const decimals = Number(dec);
    if (
      !/^[A-Z0-9]{2,10}$/.test(asset) ||
      !chain ||
      !Number.isInteger(decimals) ||
      decimals < 0 ||
      decimals > 18 ||
      !DTI_PATTERN.test(dti)
    )
      r.problems.push(`SVC_TRP_ASSETS: "${item}" must be ASSET:chain:decimals(0-18):DTI`);
    else out.push({ asset, chain, decimals, dti });
  }
  return out;
}

function readRetry(r: ConfigReader): number[] {
  const v = r.raw('SVC_TRP_RETRY_SECONDS') ?? '60,300,900,3600,10800';
  const list = v.split(',').map((s) => Number(s.trim()));
  if (list.length > 20 || list.some((n) => !Number.isInteger(n) || n < 1 || n > 86400)) {
    r.problems.push('SVC_TRP_RETRY_SECONDS must be up to 20 waits in seconds (1-86400), comma separated');
    return [];
  }
  return list;
}

function readPem(r: ConfigReader, name: string, check: (pem: string) => void): string | undefined {
  const file = r.raw(name);
  if (!file) return undefined;
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch {
    r.problems.push(`${name} cannot be read`);
    return undefined;
  }
  try {
    if (!pem.includes('-----BEGIN ')) throw new Error('not PEM');
    check(pem);
  } catch {
    r.problems.push(`${name} is not a PEM ${name.endsWith('KEY_FILE') ? 'private key' : 'certificate'}`);
    return undefined;
  }
  return pem;
}

/**
 * SVC_TRP_TLS_CERT_FILE / SVC_TRP_TLS_KEY_FILE (our mTLS client certificate and its key, which must
 * match) and SVC_TRP_TLS_CA_FILE: TRP 3 peers require a client certificate, so production needs them.
 */
function readTls(r: ConfigReader, environment: 'sandbox' | 'production'): TrpConfig['tls'] {
  const cert = readPem(r, 'SVC_TRP_TLS_CERT_FILE', (p) => new X509Certificate(p));
  const key = readPem(r, 'SVC_TRP_TLS_KEY_FILE', (p) => createPrivateKey(p));
  const ca = readPem(r, 'SVC_TRP_TLS_CA_FILE', (p) => new X509Certificate(p));
  const given = [r.raw('SVC_TRP_TLS_CERT_FILE'), r.raw('SVC_TRP_TLS_KEY_FILE')].filter(Boolean).length;
  if (given === 1)
    r.problems.push('SVC_TRP_TLS_CERT_FILE and SVC_TRP_TLS_KEY_FILE are set together or not at all');
  else if (given === 0 && environment === 'production')
    r.problems.push(
      'SVC_TRP_TLS_CERT_FILE and SVC_TRP_TLS_KEY_FILE are required in production (TRP peers require mTLS)',
    );
  if (!cert || !key) return null;
  if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) {
    r.problems.push('SVC_TRP_TLS_KEY_FILE is not the key of SVC_TRP_TLS_CERT_FILE');
    return null;
  }
  return { cert, key, ...(ca ? { ca } : {}) };
}

/** The TRP settings (SVC_TRP_*), on the service's config reader. */
export function readTrpConfig(r: ConfigReader, environment: 'sandbox' | 'production' = 'sandbox'): TrpConfig {
  const required = (name: string) => {
    const v = r.raw(name);
    if (!v) r.problems.push(`${name} is required when SVC_TRAVEL_RULE_PROVIDER=trp`);
    return v ?? '';
  };
  const publicUrl = required('SVC_TRP_PUBLIC_URL').replace(/\/+$/, '');
  if (publicUrl && !httpsOrLoopback(publicUrl))
    r.problems.push('SVC_TRP_PUBLIC_URL must be an https URL (http only for localhost)');
  const callbackSecret = required('SVC_TRP_CALLBACK_SECRET');
  if (callbackSecret && callbackSecret.length < MIN_CALLBACK_SECRET_LENGTH)
    r.problems.push(`SVC_TRP_CALLBACK_SECRET must be at least ${MIN_CALLBACK_SECRET_LENGTH} characters`);
  return {
    publicUrl,
    directory: readDirectory(r),
    assets: readAssets(r),
    callbackSecret,
    timeoutMs: r.int('SVC_TRP_TIMEOUT_MS', 10000, 100, 60000),
    breakerFailures: r.int('SVC_TRP_BREAKER_FAILURES', 5, 1, 100),
    breakerCooldownMs: r.int('SVC_TRP_BREAKER_COOLDOWN_MS', 30000, 1000, 600000),
    retrySeconds: readRetry(r),
    tls: readTls(r, environment),
  };
}

/** `readTrpConfig` over raw variables, adding its problems to `problems` (for tools and tests). */
export function loadTrpConfig(
  env: Env,
  problems: string[],
  environment: 'sandbox' | 'production' = 'sandbox',
): TrpConfig {
  const r = new ConfigReader(env);
  const config = readTrpConfig(r, environment);
  problems.push(...r.problems);
  return config;
}
