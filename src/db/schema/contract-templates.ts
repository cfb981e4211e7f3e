import { desc, sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { bytea, createdAt, idColumn, ts, updatedAt } from './columns';

export interface ContractRoleDef {
  role: string;
  kind: 'signer' | 'approver' | 'viewer';
  signing_order: number;
}

export interface ContractFieldDef {
  field_id: string;
  role: string;
  type: 'signature' | 'initials' | 'name' | 'email' | 'date_signed' | 'text' | 'checkbox';
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  value_key: string | null;
}

/** A contract template (docs/guides/contracts.md): a PDF plus roles and fields. PATCH bumps `version`. */
export const contractTemplates = pgTable(
  'contract_templates',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    description: text('description'),
    fileName: text('file_name').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    pageCount: integer('page_count').notNull(),
    content: bytea('content').notNull(),
    roles: jsonb('roles').$type<ContractRoleDef[]>().notNull(),
    fields: jsonb('fields').$type<ContractFieldDef[]>().notNull(),
    version: integer('version').notNull().default(1),
    isAdHoc: boolean('is_ad_hoc').notNull().default(false),
    /** Set once a flow or request has used it: DELETE is then 409. */
    usedAt: ts('used_at'),
    archivedAt: ts('archived_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('contract_templates_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    index('contract_templates_client_updated_idx').on(t.clientId, t.updatedAt).where(sql`is_ad_hoc = false`),
  ],
);

export interface ContractFlowPayment {
  amount: string | null;
  currency: string;
  project_id: string;
  description: string | null;
  payer_role: string;
}

export interface ContractCcRecipient {
  email: string;
  name: string | null;
  when: 'on_send' | 'on_completion';
  sent_at?: string | null;
}

export const CONTRACT_FLOW_STATUSES = ['draft', 'active'] as const;
export type ContractFlowStatus = (typeof CONTRACT_FLOW_STATUSES)[number];

/** A contract flow: 1-5 templates, defaults and an optional payment step; draft -> active. */
export const contractFlows = pgTable(
  'contract_flows',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status').$type<ContractFlowStatus>().notNull(),
    templateIds: jsonb('template_ids').$type<string[]>().notNull(),
    expiresInDays: integer('expires_in_days').notNull(),
    reminderIntervalDays: integer('reminder_interval_days'),
    delivery: text('delivery').notNull(),
    ccRecipients: jsonb('cc_recipients').$type<ContractCcRecipient[]>().notNull(),
    payment: jsonb('payment').$type<ContractFlowPayment | null>(),
    activatedAt: ts('activated_at'),
    archivedAt: ts('archived_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('contract_flows_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id))],
);
