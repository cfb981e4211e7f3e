import { integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, updatedAt } from './columns';

/**
 * The sandbox verification provider's own state (it stands in for the vendor's database): one
 * row per provider session with the last result it produced (encrypted, it holds identity data).
 */
export const sandboxVerificationSessions = pgTable(
  'sandbox_verification_sessions',
  {
    id: idColumn('id'),
    providerRef: text('provider_ref').notNull(),
    /** kyc or kyb */
    kind: text('kind').notNull(),
    level: text('level').notNull(),
    checks: jsonb('checks').$type<string[]>().notNull(),
    /** Who is verified, as the service described them (names, email, company). */
    subject: jsonb('subject').$type<Record<string, string | null>>().notNull(),
    status: text('status').notNull().default('pending'),
    /** Increases with every reported change. */
    revision: integer('revision').notNull().default(0),
    resultEnc: text('result_enc'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('sandbox_verification_sessions_ref_uq').on(t.providerRef)],
);
