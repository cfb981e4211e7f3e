import { sql } from 'drizzle-orm';
import { boolean, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const CLIENT_STATUSES = ['pending_verification', 'active'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

/** A merchant. Owns every client-scoped row through client_id. */
export const clients = pgTable(
  'clients',
  {
    id: idColumn('id'),
    companyName: text('company_name').notNull(),
    email: text('email').notNull(),
    /** pending_verification until the registering owner verifies the email, then active. */
    status: text('status').$type<ClientStatus>().notNull().default('pending_verification'),
    isActive: boolean('is_active').notNull().default(true),
    productionAccessEnabled: boolean('production_access_enabled').notNull().default(false),
    paymentLinksEnabled: boolean('payment_links_enabled').notNull().default(true),
    kycLinksEnabled: boolean('kyc_links_enabled').notNull().default(true),
    callbackUrl: text('callback_url'),
    webhookUrl: text('webhook_url'),
    webhookEnabled: boolean('webhook_enabled').notNull().default(false),
    /** Main webhook signing secret, encrypted at rest (it must be readable to sign). */
    webhookSecretEnc: text('webhook_secret_enc'),
    /** Subscribed event types of the main webhook; empty = all. */
    webhookEventTypes: jsonb('webhook_event_types').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /** Client-level MFA defaults. */
    mfaEnabled: boolean('mfa_enabled').notNull().default(false),
    mfaEmailEnabled: boolean('mfa_email_enabled').notNull().default(true),
    mfaTotpEnabled: boolean('mfa_totp_enabled').notNull().default(false),
    mfaPreferredMethod: text('mfa_preferred_method').notNull().default('email'),
    /** Verification visibility groups granted by staff. */
    visibilityGroups: jsonb('visibility_groups').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /** Staff overrides of the named-area switches (modules/features); absent keys take the environment's default. */
    features: jsonb('features').$type<Record<string, boolean>>().notNull().default(sql`'{}'::jsonb`),
    verifiedAt: ts('verified_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('clients_email_uq').on(sql`lower(${t.email})`)],
);
