import pino, { type Logger, type LoggerOptions } from 'pino';

/** Paths redacted from every log line: credentials, secrets, codes and passwords. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-security-code"]',
  'req.headers["x-security-token"]',
  'req.headers["x-svc-signature"]',
  '*.password',
  '*.new_password',
  '*.current_password',
  '*.api_secret',
  '*.secret',
  '*.webhook_secret',
  '*.refresh_token',
  '*.access_token',
  '*.otp_code',
  '*.code',
  '*.challenge_token',
];

/** Opaque tokens in page URLs (/checkout/<token>, /verify/<token>) are bearer secrets: mask them in logs. */
export function maskUrl(url: string): string {
  return url.replace(/\/(checkout|verify|bank)\/([A-Za-z0-9_-]{16,})/g, '/$1/***');
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; id: string; ip?: string }) => ({
        method: req.method,
        url: maskUrl(req.url),
        request_id: req.id,
        remote: req.ip,
      }),
    },
  };
}

export function createLogger(level: string): Logger {
  return pino(loggerOptions(level));
}
