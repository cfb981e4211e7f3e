import { desc, sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import type { SanctionsNameMatch, SanctionsScreening } from './sanctions-lists';

export interface OriginatorVasp {
  name: string;
  lei?: string | null;
  country: string;
}

export interface CounterpartyVasp {
  vasp_id: string;
  name: string;
  country: string;
}

/** One client's travel-rule settings (docs/guides/travel-rule.md); absent means the defaults. */
export const travelRuleSettings = pgTable('travel_rule_settings', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id),
  thresholdAmount: numeric('threshold_amount').notNull(),
  thresholdCurrency: text('threshold_currency').notNull(),
  originatorVasp: jsonb('originator_vasp').$type<OriginatorVasp | null>(),
  screenCounterpartyWallet: boolean('screen_counterparty_wallet').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const TRANSFER_STATUSES = [
  'not_required',
  'pending',
  'awaiting_counterparty',
  'awaiting_ownership',
  'counterparty_not_reachable',
  'needs_repair',
  'awaiting_review',
  'accepted',
  'rejected',
  'completed',
  'canceled',
  'expired',
] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** A travel-rule transfer, outbound (the client's customer sends) or inbound (the network delivered it). */
export const travelRuleTransfers = pgTable(
  'travel_rule_transfers',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    direction: text('direction').notNull(),
    status: text('status').$type<TransferStatus>().notNull(),
    statusReason: text('status_reason'),
    asset: text('asset').notNull(),
    chain: text('chain').notNull(),
    amount: numeric('amount').notNull(),
    /** Null only on an inbound transfer whose network sends no fiat value (TRP inquiries carry none). */
    fiatAmount: numeric('fiat_amount'),
    fiatCurrency: text('fiat_currency'),
    thresholdApplies: boolean('threshold_applies').notNull(),
    originator: jsonb('originator').$type<Record<string, unknown>>().notNull(),
    beneficiary: jsonb('beneficiary').$type<Record<string, unknown>>().notNull(),
    originatorVasp: jsonb('originator_vasp').$type<OriginatorVasp | null>(),
    beneficiaryVasp: jsonb('beneficiary_vasp').$type<CounterpartyVasp | null>(),
    counterpartyAddress: text('counterparty_address').notNull(),
    counterpartyHosted: boolean('counterparty_hosted'),
    walletId: uuid('wallet_id'),
    screeningId: uuid('screening_id'),
    ownershipRequestId: uuid('ownership_request_id'),
    repairFields: jsonb('repair_fields').$type<string[] | null>(),
    txHash: text('tx_hash'),
    nameMatch: text('name_match'),
    /**
     * The originator's and beneficiary's names screened against the sanctions lists when the transfer
     * was created or received: the hits (empty: none); null when not screened. Reported, never decided on.
     */
    sanctionsMatches: jsonb('sanctions_matches').$type<SanctionsNameMatch[]>(),
    /**
     * Whether the parties' names were screened: `screened`, `not_configured` (the deployment has no
     * lists) or `unavailable` (lists configured but unable to answer: an inbound transfer is kept
     * unscreened rather than lost; an outbound creation answers 503 instead). Null on older rows.
     */
    sanctionsScreening: text('sanctions_screening').$type<SanctionsScreening>(),
    justification: text('justification'),
    clientReference: text('client_reference'),
    userId: uuid('user_id'),
    businessCustomerId: uuid('business_customer_id'),
    metadata: jsonb('metadata').$type<Record<string, string> | null>(),
    /** The network's id of an inbound transfer. */
    networkRef: text('network_ref'),
    /**
     * Where the counterparty takes our next protocol message for this transfer, when its network
     * gives one per transfer (TRP: the beneficiary VASP's confirmation callback from its approval).
     */
    counterpartyCallback: text('counterparty_callback'),
    /**
     * The beneficiary's travel address, when the client named one (TRP 3.1+): the inquiry goes to
     * the URL it decodes to, at the directory VASP on that URL's origin.
     */
    counterpartyTravelAddress: text('counterparty_travel_address'),
    /** Highest network notification revision applied. */
    lastRevision: integer('last_revision').notNull().default(0),
    expiresAt: ts('expires_at'),
    acceptedAt: ts('accepted_at'),
    completedAt: ts('completed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('travel_rule_transfers_client_ref_uq').on(t.clientId, t.clientReference),
    uniqueIndex('travel_rule_transfers_network_ref_uq').on(t.networkRef),
    index('travel_rule_transfers_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    index('travel_rule_transfers_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.status} in ('awaiting_counterparty', 'needs_repair', 'awaiting_review')`),
    index('travel_rule_transfers_ownership_idx').on(t.ownershipRequestId),
    // The worker's sweep of inbound transfers to screen again (few rows, usually none).
    index('travel_rule_transfers_unscreened_idx')
      .on(t.createdAt)
      .where(sql`${t.sanctionsScreening} = 'unavailable'`),
  ],
);

/**
 * The sandbox network simulator's log: messages it received and answers it gave (the Repair VASP's
 * second answer and the answers' revisions follow from it). Its delayed answers are timer jobs
 * (src/providers/sandbox-deliveries.ts). The table's former queue columns `due_at` and
 * `delivered_at` are no longer named (migration 0041); they stay in the database until the next
 * release drops them (docs/guides/operations.md, "Schema changes across a rolling deploy").
 */
export const sandboxTravelRuleJobs = pgTable(
  'sandbox_travel_rule_jobs',
  {
    id: idColumn('id'),
    subjectRef: text('subject_ref').notNull(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index('sandbox_travel_rule_jobs_subject_idx').on(t.subjectRef)],
);
