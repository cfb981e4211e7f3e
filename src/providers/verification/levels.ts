/**
 * The built-in verification levels and the checks they name: what every verification adapter must
 * map (the Sumsub adapter requires a vendor level for each). The kyc feature adds the client's
 * custom levels on top (src/modules/kyc/levels.repo.ts).
 */
import type { VerificationKind } from './port';

export const KYC_CHECKS = ['liveness', 'face_match', 'nfc', 'poa', 'aml', 'sof_questionnaire'] as const;
export const KYB_CHECKS = ['registry', 'key_people', 'aml'] as const;
export const CHECKS_OF: Record<VerificationKind, readonly string[]> = { kyc: KYC_CHECKS, kyb: KYB_CHECKS };

export interface BuiltinLevel {
  name: string;
  description: string;
  checks: string[];
}

export const BUILTIN_LEVELS: Record<VerificationKind, BuiltinLevel[]> = {
  kyc: [
    { name: 'basic', description: 'Identity document and liveness', checks: ['liveness'] },
    {
      name: 'standard',
      description: 'Identity document, liveness, face match and AML screening',
      checks: ['liveness', 'face_match', 'aml'],
    },
    {
      name: 'enhanced',
      description: 'Standard plus NFC chip read, proof of address and a source-of-funds questionnaire',
      checks: ['liveness', 'face_match', 'nfc', 'poa', 'aml', 'sof_questionnaire'],
    },
  ],
  kyb: [
    { name: 'kyb-basic', description: 'Company registry check', checks: ['registry'] },
    {
      name: 'kyb-standard',
      description: 'Company registry check, key people (directors, UBOs) and AML screening',
      checks: ['registry', 'key_people', 'aml'],
    },
  ],
};

/** The level used when a link request names none. */
export const DEFAULT_LEVEL: Record<VerificationKind, string> = { kyc: 'standard', kyb: 'kyb-standard' };
