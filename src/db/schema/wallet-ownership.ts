import { desc } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { screeningWallets } from './screening';

export interface SatoshiTest {
  deposit_address: string;
  amount: string;
  asset: string;
  expires_at: string;
}

/**
 * A wallet ownership request (named-areas.md section 3). `status` moves only through
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
    /** pending, verifying, verified, failed, expired, canceled */
    status: text('status').notNull(),
    methods: jsonb('methods').$type<string[]>().notNull(),
    method: text('method'),
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
    assurance: text('assurance'),
    /** The wallet's ownership status before this request (restored on expiry or cancel). */
    previousOwnershipStatus: text('previous_ownership_status').notNull(),
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
