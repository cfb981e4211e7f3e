/** Signature of the bank network's notifications: the shared provider scheme (../signature.ts). */
import { signProviderPayload, verifyProviderSignature } from '../signature';
import { BANK_SIGNATURE_TOLERANCE_SECONDS } from './port';

export function signBankPayload(secret: string, rawBody: string, now: Date): string {
  return signProviderPayload(secret, rawBody, now);
}

export function verifyBankSignature(
  secret: string,
  rawBody: string,
  header: string | undefined,
  now: Date,
): boolean {
  return verifyProviderSignature(secret, rawBody, header, now, BANK_SIGNATURE_TOLERANCE_SECONDS);
}
