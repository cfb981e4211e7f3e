import { randomBytes } from 'node:crypto';
import { validate as uuidValidate, v7 as uuidv7 } from 'uuid';

/** Time-ordered UUIDs (v7): unique like v4, but inserts land at the end of the primary-key index. */
export const newId = (): string => uuidv7();

export const isUuid = (value: string): boolean => uuidValidate(value);

/** URL-safe random token, e.g. for checkout links and challenge tokens. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** A numeric code of `digits` digits drawn uniformly (for emailed OTPs). */
export function randomDigits(digits = 6): string {
  const max = 10 ** digits;
  const limit = Math.floor(0xffffffff / max) * max;
  let n: number;
  do {
    n = randomBytes(4).readUInt32BE(0);
  } while (n >= limit);
  return String(n % max).padStart(digits, '0');
}
