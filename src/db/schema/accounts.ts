import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/** A client's team member (dashboard login). Email is unique across the platform: login is by email. */
export const accounts = pgTable(
  'accounts',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    email: text('email').notNull(),
    fullName: text('full_name').notNull(),
    role: text('role').notNull(),
    passwordHash: text('password_hash').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    emailVerifiedAt: ts('email_verified_at'),
    mfaUseClientDefault: boolean('mfa_use_client_default').notNull().default(true),
    mfaEnabled: boolean('mfa_enabled').notNull().default(false),
    mfaEmailEnabled: boolean('mfa_email_enabled').notNull().default(true),
    mfaTotpEnabled: boolean('mfa_totp_enabled').notNull().default(false),
    mfaPreferredMethod: text('mfa_preferred_method').notNull().default('email'),
    /** TOTP secret, encrypted at rest; null until enrollment is confirmed. */
    totpSecretEnc: text('totp_secret_enc'),
    totpEnrolledAt: ts('totp_enrolled_at'),
    /** Last accepted TOTP time step: a code is never accepted twice. */
    totpLastStep: integer('totp_last_step'),
    passwordChangedAt: ts('password_changed_at'),
    lastLoginAt: ts('last_login_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('accounts_email_uq').on(sql`lower(${t.email})`),
    index('accounts_client_idx').on(t.clientId, t.createdAt),
  ],
);

/** Staff of the platform operator (service_internal). Separate from client accounts by design. */
export const staffAccounts = pgTable(
  'staff_accounts',
  {
    id: idColumn('id'),
    email: text('email').notNull(),
    fullName: text('full_name'),
    passwordHash: text('password_hash').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('staff_accounts_email_uq').on(sql`lower(${t.email})`)],
);

/** Access tokens revoked before expiry (logout). Checked on every request, so revocation holds across nodes. */
export const revokedTokens = pgTable(
  'revoked_tokens',
  {
    jti: text('jti').primaryKey(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: createdAt(),
  },
  (t) => [index('revoked_tokens_expires_idx').on(t.expiresAt)],
);
