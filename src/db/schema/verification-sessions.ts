import { desc, sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { businessCustomers, kycUsers } from './customers';

/** creating -> pending (link usable) -> submitted (hosted page used) | expired (unused past expires_at) | failed (provider refused) */
export const VERIFICATION_SESSION_STATUSES = [
  'creating',
  'pending',
  'submitted',
  'expired',
  'failed',
] as const;
export type VerificationSessionStatus = (typeof VERIFICATION_SESSION_STATUSES)[number];

/**
 * A verification link (one attempt to verify a user or a business customer at a level): the
 * hosted page's token, the provider's session reference, the level and checks it was created with.
 * The result of the attempt is its row in verification_records (written when the provider reports).
 */
export const verificationSessions = pgTable(
  'verification_sessions',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    /** kyc (user) or kyb (business customer) */
    kind: text('kind').notNull(),
    userId: uuid('user_id').references(() => kycUsers.id),
    businessCustomerId: uuid('business_customer_id').references(() => businessCustomers.id),
    level: text('level').notNull(),
    /** Checks of the level at creation time (a later edit of a custom level does not change it). */
    checks: jsonb('checks').$type<string[]>().notNull(),
    /** Capability in the hosted page URL (/verify/{token}). */
    token: text('token').notNull(),
    redirectUrl: text('redirect_url'),
    /** The provider's session reference; null until the provider accepted the session. */
    providerRef: text('provider_ref'),
    status: text('status').$type<VerificationSessionStatus>().notNull().default('creating'),
    expiresAt: ts('expires_at').notNull(),
    submittedAt: ts('submitted_at'),
    /**
     * When the person accepted the privacy disclosure on our hosted page (vendors that must not
     * receive personal data before it, e.g. Sumsub), and the version of the text they accepted.
     */
    consentAcceptedAt: ts('consent_accepted_at'),
    consentVersion: text('consent_version'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('verification_sessions_token_uq').on(t.token),
    uniqueIndex('verification_sessions_provider_ref_uq').on(t.providerRef),
    // The reconciliation and re-check queues: links the provider knows, by when it was last heard of.
    index('verification_sessions_referenced_updated_idx')
      .on(t.updatedAt)
      .where(sql`${t.providerRef} is not null`),
    index('verification_sessions_client_user_idx').on(t.clientId, t.userId, desc(t.createdAt)),
    index('verification_sessions_client_business_idx').on(
      t.clientId,
      t.businessCustomerId,
      desc(t.createdAt),
    ),
  ],
);
