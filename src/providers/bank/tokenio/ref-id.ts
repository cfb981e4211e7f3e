/** Token.io's refId: at most 18 characters, letters and digits recommended (docs/vendors/tokenio.md, point 8). */
import { randomBytes } from 'node:crypto';

const REF_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function newRefId(): string {
  let s = '';
  for (const b of randomBytes(18)) s += REF_ALPHABET[b % REF_ALPHABET.length];
  return s;
}
