/**
 * Captures every log line a test file produces and every secret it handles, so the setup file
 * (test/helpers/setup.ts) can fail the file when a secret reached a log. Automatic for any test
 * that uses createTestApp: the app logs through the service's own pino options (redaction,
 * serializers) into memory, and a hook harvests secrets from requests and responses: passwords,
 * codes, tokens and secrets by field name, bearer tokens and security headers, capability tokens
 * in path parameters and in returned URLs. Mail (MemoryMailer, the SMTP capture) yields its codes,
 * temporary passwords and link tokens. Child processes register their output too.
 */
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { loggerOptions } from '../../src/logger';

const lines: string[] = [];
const externalLogs: (() => string)[] = [];
const secrets = new Map<string, string>();

/** Field names whose string values are secrets. */
const SECRET_KEY =
  /^(?:password|code|otp_code|api_key|secret|token)$|(?:_password|_secret|_token|_code)$|^(?:new|current|temporary)_password$/i;
/** Field names that look secret but hold none (public identifiers and classifiers). */
const NOT_SECRET_KEY =
  /^(?:country_code|currency_code|mcc_code|error_code|status_code|token_type|code_challenge)$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let harvestRequestBodies = true;

/**
 * Whether request bodies are harvested (default on). The fuzz test turns it off: its random
 * "passwords" are not secrets and could match unrelated log text.
 */
export function setHarvestRequestBodies(on: boolean): void {
  harvestRequestBodies = on;
}

export function forgetSecret(value: string): void {
  secrets.delete(value);
}

export function rememberSecret(value: unknown, source: string): void {
  if (typeof value !== 'string') return;
  const v = value.trim();
  if (v.length < 6 || UUID.test(v) || secrets.has(v)) return;
  secrets.set(v, source);
}

/** Capability tokens in a URL: path segments of 16+ opaque characters, and secret query values. */
export function harvestUrl(url: string, source: string): void {
  let u: URL;
  try {
    u = new URL(url, 'http://localhost');
  } catch {
    return;
  }
  for (const seg of u.pathname.split('/')) {
    const s = decodeURIComponent(seg);
    if (s.length >= 16 && /^[A-Za-z0-9_.~-]+$/.test(s) && !UUID.test(s) && !/^[a-z_.-]+$/.test(s))
      rememberSecret(s, `${source} (url path)`);
  }
  for (const [k, v] of u.searchParams)
    if (SECRET_KEY.test(k) && !NOT_SECRET_KEY.test(k)) rememberSecret(v, source);
  if (u.protocol === 'otpauth:') rememberSecret(u.searchParams.get('secret'), `${source} (otpauth secret)`);
}

/** Secrets in a parsed JSON value, by field name, and tokens inside returned URLs. */
export function harvestJson(value: unknown, source: string): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        if (typeof child === 'string') {
          if (SECRET_KEY.test(k) && !NOT_SECRET_KEY.test(k)) rememberSecret(child, `${source}: ${k}`);
          if (/(?:_url|_uri)$/.test(k) || /^https?:\/\//.test(child) || child.startsWith('otpauth:'))
            harvestUrl(child, `${source}: ${k}`);
        } else stack.push(child);
      }
    }
  }
}

/** Codes, temporary passwords and link tokens in a mail body. */
export function harvestMailText(text: string, source = 'mail'): void {
  for (const m of text.matchAll(/\b\d{6}\b/g)) rememberSecret(m[0], `${source}: code`);
  for (const m of text.matchAll(/password:\s*(\S+)/gi)) rememberSecret(m[1], `${source}: password`);
  for (const m of text.matchAll(/https?:\/\/[^\s"'<>]+/g)) harvestUrl(m[0], `${source}: link`);
}

/** The app's logger in tests: the service's options, written to memory instead of stdout. */
export function captureLogger(level: string): Logger {
  return pino(loggerOptions(level), {
    write(line: string) {
      lines.push(line);
    },
  });
}

/** Forgets everything captured: each test file starts empty, also when files share a worker (isolate: false). */
export function resetLogCapture(): void {
  lines.length = 0;
  externalLogs.length = 0;
  secrets.clear();
  harvestRequestBodies = true;
}

export function capturedLogLines(): readonly string[] {
  return lines;
}

/** Output of a child process (or anything else logged outside createTestApp) to scan too. */
export function addExternalLog(read: () => string): void {
  externalLogs.push(read);
}

/** Harvests secrets from every request and response of an app (test apps only). */
export function harvestSecrets(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const source = `${request.method} ${request.routeOptions.url ?? request.url}`;
    const auth = request.headers.authorization;
    if (typeof auth === 'string') rememberSecret(auth.replace(/^Bearer\s+/i, ''), `${source}: bearer`);
    for (const h of ['x-security-token', 'x-security-code', 'x-api-key'])
      rememberSecret(request.headers[h], `${source}: ${h}`);
    harvestUrl(request.url, `${source} request`);
    const params = (request.params ?? {}) as Record<string, unknown>;
    // A capability token the service accepted; a refused one grants nothing (the fuzzer sends the
    // same made-up strings as tokens and as other path segments, which are logged).
    if (reply.statusCode < 400)
      for (const [k, v] of Object.entries(params))
        if (/token/i.test(k)) rememberSecret(v, `${source}: :${k}`);
    if (harvestRequestBodies && request.body && typeof request.body === 'object')
      harvestJson(request.body, `${source} request`);
    const type = String(reply.getHeader('content-type') ?? '');
    if (typeof payload === 'string' && type.includes('json') && payload.length < 512 * 1024) {
      try {
        harvestJson(JSON.parse(payload), `${source} response`);
      } catch {
        // not JSON after all
      }
    }
    return payload;
  });
}

const digitsOnly = /^\d+$/;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface Leak {
  source: string;
  secret: string;
  line: string;
}

/** Every harvested secret that appears in a captured log line (secrets masked in the report). */
export function findLeaks(): Leak[] {
  const all = [...lines, ...externalLogs.map((read) => read())];
  const text = all.join('\n');
  const leaks: Leak[] = [];
  for (const [secret, source] of secrets) {
    // A numeric code must stand alone (not inside a timestamp, a pid or a longer number).
    const found = digitsOnly.test(secret)
      ? new RegExp(`(?<![0-9A-Za-z.])${secret}(?![0-9A-Za-z.])`).test(text)
      : text.includes(secret);
    if (!found) continue;
    const re = digitsOnly.test(secret)
      ? new RegExp(`(?<![0-9A-Za-z.])${secret}(?![0-9A-Za-z.])`)
      : new RegExp(escapeRe(secret));
    const line = text.split('\n').find((l) => re.test(l)) ?? '';
    const masked = `${secret.slice(0, 3)}…(${secret.length})`;
    leaks.push({ source, secret: masked, line: line.replaceAll(secret, masked).slice(0, 400) });
  }
  return leaks;
}

/** How many secrets were harvested (the log-scan test checks the harvest itself works). */
export function harvestedSecretCount(): number {
  return secrets.size;
}

export function isRemembered(value: string): boolean {
  return secrets.has(value);
}
