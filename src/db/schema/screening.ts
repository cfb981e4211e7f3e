import { desc, sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export interface Exposure {
  category: string;
  direction: 'incoming' | 'outgoing';
  exposure_type: 'direct' | 'indirect';
  percentage: number;
  amount_usd: string | null;
}

export interface Cluster {
  name: string;
  category: string;
}

export const WALLET_OWNERSHIP_STATUSES = ['unverified', 'pending', 'verified', 'failed'] as const;
export type WalletOwnershipStatus = (typeof WALLET_OWNERSHIP_STATUSES)[number];

export const SCREENING_STATUSES = ['pending', 'completed', 'failed'] as const;
export type ScreeningStatus = (typeof SCREENING_STATUSES)[number];

/**
 * A screened wallet, unique per client by (chain, normalized address).
 * Risk columns mirror the latest completed screening; a monitored wallet's `next_rescreen_at` is also
 * the due time of its re-screen timer (`screening.wallet_rescreen`, set in the same transaction).
 */
export const screeningWallets = pgTable(
  'screening_wallets',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    chain: text('chain').notNull(),
    address: text('address').notNull(),
    normalizedAddress: text('normalized_address').notNull(),
    label: text('label'),
    userId: uuid('user_id'),
    businessCustomerId: uuid('business_customer_id'),
    monitored: boolean('monitored').notNull().default(false),
    /** unknown until a screening completes */
    riskLevel: text('risk_level'),
    riskScore: integer('risk_score'),
    sanctionsHit: boolean('sanctions_hit'),
    latestScreeningId: uuid('latest_screening_id'),
    lastScreenedAt: ts('last_screened_at'),
    nextRescreenAt: ts('next_rescreen_at'),
    ownershipStatus: text('ownership_status').$type<WalletOwnershipStatus>().notNull().default('unverified'),
    ownershipMethod: text('ownership_method'),
    ownershipVerifiedAt: ts('ownership_verified_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('screening_wallets_client_address_uq').on(t.clientId, t.chain, t.normalizedAddress),
    index('screening_wallets_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    index('screening_wallets_rescreen_idx').on(t.nextRescreenAt).where(sql`${t.monitored} = true`),
  ],
);

/** One screening of a wallet. The risk fields are null until it completes; completed and failed are final. */
export const walletScreenings = pgTable(
  'wallet_screenings',
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
    asset: text('asset'),
    status: text('status').$type<ScreeningStatus>().notNull(),
    riskLevel: text('risk_level'),
    riskScore: integer('risk_score'),
    sanctionsHit: boolean('sanctions_hit'),
    categories: jsonb('categories').$type<string[] | null>(),
    exposures: jsonb('exposures').$type<Exposure[] | null>(),
    cluster: jsonb('cluster').$type<Cluster | null>(),
    riskReasons: jsonb('risk_reasons').$type<string[] | null>(),
    previousRiskLevel: text('previous_risk_level'),
    clientReference: text('client_reference'),
    userId: uuid('user_id'),
    businessCustomerId: uuid('business_customer_id'),
    /** api, rescreen, monitoring, travel_rule */
    trigger: text('trigger').notNull(),
    failureReason: text('failure_reason'),
    /** The highest provider revision applied (older or replayed notifications change nothing). */
    providerRevision: integer('provider_revision').notNull().default(0),
    createdAt: createdAt(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    index('wallet_screenings_wallet_created_idx').on(t.walletId, desc(t.createdAt)),
    index('wallet_screenings_client_created_idx').on(t.clientId, desc(t.createdAt)),
  ],
);
