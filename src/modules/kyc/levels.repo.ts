/**
 * Verification levels: the built-in ones (in code, src/providers/verification/levels.ts, since every
 * adapter maps them) and the client's custom levels (table verification_levels). A level is a named set of checks; a verification link is created at one.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { verificationLevels } from '../../db/schema/index';
import { BUILTIN_LEVELS } from '../../providers/verification/levels';
import type { VerificationKind } from '../../providers/verification/port';

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
