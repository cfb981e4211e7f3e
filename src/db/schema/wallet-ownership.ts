import { desc } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import type { SanctionsNameMatch, SanctionsScreening } from './sanctions-lists';
import { screeningWallets, type WalletOwnershipStatus } from './screening';

export interface SatoshiTest {
  deposit_address: string;
  amount: string;
  asset: string;
  expires_at: string;
}

export const OWNERSHIP_STATUSES = [
  'pending',
  'verifying',
  'verified',
  'failed',
  'expired',
  'canceled',
] as const;
export type OwnershipStatus = (typeof OWNERSHIP_STATUSES)[number];
export const OWNERSHIP_METHODS = ['message_signing', 'satoshi_test', 'self_declaration'] as const;
export type OwnershipMethod = (typeof OWNERSHIP_METHODS)[number];

/**
 * A wallet ownership request. `status` moves only through
 * modules/screening/ownership.machine.ts. `token` is the hosted proof page's secret (32 random bytes).
 */
export const walletOwnershipRequests = pgTable(
  'wallet_ownership_requests',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    walletId: uuid('wallet_id')
      .notNull()
      .references(() => screeningWallets.id),
    chain: text('chain').notNull(),
    address: text('address').notNull(),
    status: text('status').$type<OwnershipStatus>().notNull(),
    methods: jsonb('methods').$type<string[]>().notNull(),
    method: text('method').$type<OwnershipMethod>(),
    userId: uuid('user_id'),
    businessCustomerId: uuid('business_customer_id'),
    token: text('token').notNull(),
    challengeMessage: text('challenge_message').notNull(),
    nonce: text('nonce').notNull(),
    satoshiTest: jsonb('satoshi_test').$type<SatoshiTest | null>(),
    attemptsRemaining: integer('attempts_remaining').notNull(),
    failureReason: text('failure_reason'),
    redirectUrl: text('redirect_url'),
    delivery: text('delivery').notNull(),
    clientReference: text('client_reference'),
    /** Self declaration: who declared, recorded with assurance "low". */
    declarantName: text('declarant_name'),
    /**
     * The declarant name screened against the sanctions lists when declared: the hits (empty: none);
     * null when not screened (another method, or a deployment without lists). Reported, never decided on.
     */
    declarantSanctionsMatches: jsonb('declarant_sanctions_matches').$type<SanctionsNameMatch[]>(),
    /** `screened` or `not_configured` (a deployment without lists) for a self declaration; null otherwise. */
    declarantSanctionsScreening: text('declarant_sanctions_screening').$type<SanctionsScreening>(),
    assurance: text('assurance'),
    /** The wallet's ownership status before this request (restored on expiry or cancel). */
    previousOwnershipStatus: text('previous_ownership_status').$type<WalletOwnershipStatus>().notNull(),
    expiresAt: ts('expires_at').notNull(),
    verifiedAt: ts('verified_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('wallet_ownership_requests_token_uq').on(t.token),
    index('wallet_ownership_requests_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    index('wallet_ownership_requests_status_expires_idx').on(t.status, t.expiresAt),
  ],
);
