/**
 * Verification levels: the built-in ones (here, in code) and the client's custom levels (table
 * verification_levels). A level is a named set of checks; a verification link is created at one.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { verificationLevels } from '../../db/schema/index';
import type { VerificationKind } from '../../providers/verification/port';

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

export type CustomLevelRow = typeof verificationLevels.$inferSelect;

export function isBuiltinName(kind: VerificationKind, name: string): boolean {
  return BUILTIN_LEVELS[kind].some((l) => l.name === name.toLowerCase());
}

export function listCustomLevels(db: DbOrTx, clientId: string, kind: VerificationKind) {
  return db
    .select()
    .from(verificationLevels)
    .where(and(eq(verificationLevels.clientId, clientId), eq(verificationLevels.kind, kind)))
    .orderBy(asc(verificationLevels.createdAt), asc(verificationLevels.id));
}

/** A level by name (built-in first, then the client's own, case-insensitive); null when unknown. */
export async function findLevel(
  db: DbOrTx,
  clientId: string,
  kind: VerificationKind,
  name: string,
): Promise<{ name: string; checks: string[] } | null> {
  const builtin = BUILTIN_LEVELS[kind].find((l) => l.name === name.toLowerCase());
  if (builtin) return builtin;
  const [row] = await db
    .select()
    .from(verificationLevels)
    .where(
      and(
        eq(verificationLevels.clientId, clientId),
        eq(verificationLevels.kind, kind),
        sql`lower(${verificationLevels.name}) = ${name.toLowerCase()}`,
      ),
    );
  return row ? { name: row.name, checks: row.checks } : null;
}
