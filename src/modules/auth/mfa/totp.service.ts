/** TOTP (RFC 6238): 6 digits, 30-second step, one step of tolerance either side; time from the injected clock. */
import { authenticator } from 'otplib';

const base = authenticator.clone({ digits: 6, step: 30, window: 1 });

export const generateTotpSecret = (): string => base.generateSecret(20);

export function totpUri(secret: string, accountEmail: string, issuer = 'Payments Platform'): string {
  return base.keyuri(accountEmail, issuer, secret);
}

/** Returns the matched time step (for replay protection), or null when the code is not valid at `now`. */
export function verifyTotp(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const a = base.clone({ epoch: now.getTime() });
  const delta = a.checkDelta(code, secret);
  if (delta === null) return null;
  return Math.floor(now.getTime() / 30_000) + delta;
}

/** The code valid at `now` (tests and the sandbox use it). */
export function currentTotp(secret: string, now: Date): string {
  return base.clone({ epoch: now.getTime() }).generate(secret);
}
