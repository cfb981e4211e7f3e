/**
 * The service's pino options. What never reaches a log line:
 *  - credentials, secrets, codes and passwords (redacted paths below);
 *  - query strings and capability tokens in URLs: a request is logged with its route pattern
 *    (`/checkout/:token`, `/api/v1/workflow-triggers/:trigger_token`), never its raw URL; an
 *    unmatched request with its path only, long opaque segments masked;
 *  - SQL parameter values: a failed query is logged with its SQL text and the database's error
 *    code, constraint and table, not its parameters nor the database's `detail` (which quotes
 *    the offending values).
 */
import pino, { type Logger, type LoggerOptions } from 'pino';

/** Paths redacted from every log line: credentials, secrets, codes and passwords. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-security-code"]',
  'req.headers["x-security-token"]',
  'req.headers["x-svc-signature"]',
  'req.headers["x-provider-signature"]',
  '*.password',
  '*.new_password',
  '*.current_password',
  '*.temporary_password',
  '*.api_secret',
  '*.secret',
  '*.webhook_secret',
  '*.trigger_secret',
  '*.refresh_token',
  '*.access_token',
  '*.token',
  '*.otp_code',
  '*.code',
  '*.challenge_token',
  '*.enrollment_token',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A raw URL made safe to log: no query string, and every path segment that could be a capability
 * token (16 characters or more, other than a UUID or a lower-case word like `verification-link`) masked.
 */
export function maskUrl(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  return path
    .split('/')
    .map((seg) => (seg.length >= 16 && !UUID.test(seg) && !/^[a-z_-]+$/.test(seg) ? '***' : seg))
    .join('/');
}

interface LoggedRequest {
  method: string;
  url: string;
  id: string;
  ip?: string;
  routeOptions?: { url?: string };
}

/** The route pattern of a matched request (tokens stay placeholders), else the masked path. */
export function loggableUrl(req: LoggedRequest): string {
  return req.routeOptions?.url ?? maskUrl(req.url);
}

type ErrorLike = Error & Record<string, unknown>;

const DB_ERROR_FIELDS = ['code', 'severity', 'constraint', 'table', 'column', 'schema', 'routine'] as const;

/** A database error: SQLSTATE code (5 characters) and a severity, from node-postgres or PGlite (PGlite's also carries the query and its params: neither is logged). */
function isDatabaseError(e: ErrorLike): boolean {
  return typeof e.code === 'string' && e.code.length === 5 && typeof e.severity === 'string';
}

/** Data exceptions (class 22) quote the offending input in their message. */
function safeDatabaseMessage(e: ErrorLike): string {
  const code = String(e.code);
  return code.startsWith('22') ? e.message.replace(/"(?:[^"\\]|\\.)*"/g, '"***"') : e.message;
}

function stackFrames(e: Error): string {
  return (e.stack ?? '')
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .join('\n');
}

/**
 * pino's error serializer, except that SQL errors keep no parameter values: drizzle's query error
 * puts them in its message (`Failed query: ...\nparams: ...`), the database's `detail` quotes them.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) || depth > 5) return err;
  const e = err as ErrorLike;
  if (isDatabaseError(e)) {
    const message = safeDatabaseMessage(e);
    const out: Record<string, unknown> = { type: e.name, message };
    for (const k of DB_ERROR_FIELDS) if (e[k] !== undefined) out[k] = e[k];
    // `*.code` is redacted (one-time codes); the SQLSTATE stays readable under its own name.
    out.sqlstate = e.code;
    out.stack = `${e.name}: ${message}\n${stackFrames(e)}`;
    return out;
  }
  if (typeof e.query === 'string' && 'params' in e) {
    const params = Array.isArray(e.params) ? e.params.length : 0;
    const message = `Failed query: ${e.query}`;
    return {
      type: e.name,
      message,
      params: `[${params} redacted]`,
      stack: `${e.name}: ${message}\n${stackFrames(e)}`,
      ...(e.cause ? { cause: serializeError(e.cause, depth + 1) } : {}),
    };
  }
  const out = pino.stdSerializers.err(e) as unknown as Record<string, unknown>;
  if (e.cause) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: loggableUrl(req),
        request_id: req.id,
        remote: req.ip,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: serializeError,
    },
  };
}

export function createLogger(level: string): Logger {
  return pino(loggerOptions(level));
}
