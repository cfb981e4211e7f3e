/** Request and response schemas of /monitoring (they feed OpenAPI). */
import { Type } from 'typebox';
import { fileResponse } from '../../shared/download';
import { dateRangeQuerySchema, pageQuerySchema, searchQuerySchema } from '../../shared/pagination';
import { sanctionsHitDetails } from '../../shared/sanctions-match-schema';
import { ATTACHMENT_MEDIA_TYPES } from '../tickets/tickets-attachments.service';
import { DECISIONS } from './engine.policy';
import { MonitoringActionsSchema } from './monitoring.actions';
import { EXPIRY_DECISIONS, SANCTIONS_ACTIONS } from './monitoring.policy';
import { PAYMENT_METHODS, REMEDIATION_TYPES, RULE_ACTIONS, RULE_TYPES } from './rules.policy';

const Uuid = Type.String({ format: 'uuid' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const NStr = Nullable(Type.String());
const DateTime = Type.String({ format: 'date-time' });
const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' });
const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), {
  maxProperties: 20,
  description: 'At most 20 keys, string values of at most 500 characters',
});

export { ErrorSchema } from '../../shared/error-schema';

export const RuleInput = Type.Object(
  {
    rule_id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,63}$', description: 'A unique slug' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.Enum(RULE_TYPES),
    params: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), {
        description:
          'Per type, see the [monitoring guide](/docs/guides/monitoring): amount_above {amount, currency}, velocity_count {count, window_hours}, …',
      }),
    ),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    action: Type.Enum(RULE_ACTIONS),
    score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 0 })),
    remediation_type: Type.Optional(Nullable(Type.Enum(REMEDIATION_TYPES))),
  },
  { additionalProperties: false },
);

export const PolicyInputSchema = Type.Object(
  {
    rules: Type.Array(RuleInput, { maxItems: 50 }),
    review_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000, default: 50 })),
    decline_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000, default: 100 })),
    sanctions: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean({ default: true })),
          action: Type.Optional(Type.Enum(SANCTIONS_ACTIONS, { default: 'review' })),
          match_threshold: Type.Optional(
            Nullable(
              Type.Integer({
                minimum: 50,
                maximum: 100,
                description:
                  'Lowest name-match score (0-100) that is a sanctions hit for this client; null or absent: the deployment default (SVC_SANCTIONS_MATCH_THRESHOLD, 85).',
              }),
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    remediation_ttl_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 8760, default: 72 })),
    on_remediation_expiry: Type.Optional(Type.Enum(EXPIRY_DECISIONS, { default: 'IN_REVIEW' })),
  },
  { additionalProperties: false },
);

const Rule = Type.Object({
  rule_id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  params: Type.Record(Type.String(), Type.Unknown()),
  enabled: Type.Boolean(),
  action: Type.String(),
  score: Type.Integer(),
  remediation_type: NStr,
});

export const PolicySchema = Type.Object({
  version: Type.Integer({ description: '0 is the default policy every client starts with' }),
  rules: Type.Array(Rule),
  review_score: Type.Integer(),
  decline_score: Type.Integer(),
  sanctions: Type.Object({
    enabled: Type.Boolean(),
    action: Type.String(),
    match_threshold: Nullable(Type.Integer({ description: 'null: the deployment default' })),
  }),
  remediation_ttl_hours: Type.Integer(),
  on_remediation_expiry: Type.String(),
  updated_at: Nullable(DateTime),
  updated_by_account_id: Nullable(Uuid),
});

const Counterparty = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.Optional(Type.Enum(['natural', 'legal'] as const)),
    country: Type.Optional(Country),
    account_identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    bank_bic: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{8}([A-Z0-9]{3})?$' })),
    wallet: Type.Optional(
      Type.Object(
        {
          chain: Type.String({ minLength: 1, maxLength: 20 }),
          address: Type.String({ minLength: 1, maxLength: 128 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const txFields = {
  direction: Type.Enum(['inbound', 'outbound'] as const),
  amount: Type.String({ maxLength: 40, description: 'Decimal string greater than 0' }),
  currency: Type.String({ maxLength: 3, description: 'ISO 4217' }),
  occurred_at: Type.Optional(DateTime),
  payment_method: Type.Optional(Type.Enum(PAYMENT_METHODS)),
  user_id: Type.Optional(Uuid),
  business_customer_id: Type.Optional(Uuid),
  customer: Type.Optional(
    Type.Object(
      {
        external_id: Type.String({ minLength: 1, maxLength: 100 }),
        name: Type.String({ minLength: 1, maxLength: 200 }),
        country: Type.Optional(Country),
      },
      { additionalProperties: false },
    ),
  ),
  counterparty: Counterparty,
  transaction_id: Type.Optional(Uuid),
  metadata: Type.Optional(Metadata),
};

export const TransactionInputSchema = Type.Object(txFields, { additionalProperties: false });
export const SubmitBodySchema = Type.Object(
  { client_reference: Type.String({ minLength: 1, maxLength: 100 }), ...txFields },
  { additionalProperties: false },
);
export type SubmitInput = Type.Static<typeof SubmitBodySchema>;
export type TransactionInput = Type.Static<typeof TransactionInputSchema>;

const RuleHit = Type.Object({
  rule_id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  action: Type.String(),
  score: Type.Integer(),
});
const SanctionsMatch = Type.Object({
  list: Type.String(),
  matched_name: Type.String({
    description: 'The name of the list entry that matched (its primary name or an alias)',
  }),
  match_score: Type.Number({ description: '0-100' }),
  entry_id: Type.Optional(Type.String({ description: "The entry's reference on its list" })),
  entry_name: Type.Optional(Type.String({ description: "The entry's primary name" })),
  screened_name: Type.Optional(Type.String({ description: 'The party name that was screened' })),
  ...sanctionsHitDetails(),
});

const evaluationFields = {
  decision: Type.Enum(DECISIONS),
  decision_reason: NStr,
  score: Type.Integer(),
  rule_hits: Type.Array(RuleHit),
  sanctions_hit: Type.Boolean(),
};

export const MonitoredTransactionSchema = Type.Object({
  monitored_transaction_id: Uuid,
  client_reference: Type.String(),
  direction: Type.String(),
  amount: Type.String(),
  currency: Type.String(),
  occurred_at: DateTime,
  payment_method: NStr,
  user_id: Nullable(Uuid),
  business_customer_id: Nullable(Uuid),
  customer: Nullable(Type.Record(Type.String(), Type.Unknown())),
  counterparty: Type.Record(Type.String(), Type.Unknown()),
  transaction_id: Nullable(Uuid),
  metadata: Nullable(Type.Record(Type.String(), Type.String())),
  ...evaluationFields,
  sanctions_matches: Type.Array(SanctionsMatch),
  wallet_screening_id: Nullable(Uuid),
  remediation: Nullable(
    Type.Object({
      type: Type.String(),
      status: Type.String(),
      url: NStr,
      expires_at: Nullable(DateTime),
      submitted_at: Nullable(DateTime),
      answers: Nullable(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            'What the customer submitted. source_of_funds: source, explanation and, when a document was ' +
            'uploaded, `document {document_id, file_name, content_type, size, sha256}` (download it from ' +
            '/monitoring/transactions/{id}/remediation/documents/{document_id}); identity_reverification: ' +
            'verification_id and verification_status; wallet_ownership: ownership_request_id, ownership_status, ' +
            'ownership_method, failure_reason.',
        }),
      ),
      /** identity_reverification: the KYC/KYB verification link issued. */
      verification_id: Type.Optional(Nullable(Uuid)),
      /** wallet_ownership: the section 3 ownership request opened for counterparty.wallet. */
      ownership_request_id: Type.Optional(Nullable(Uuid)),
    }),
  ),
  remediation_url: NStr,
  remediation_status: NStr,
  policy_version: Type.Integer(),
  reviews: Type.Array(
    Type.Object({
      decision: Type.String(),
      note: Type.String(),
      actor_type: Type.String(),
      actor_account_id: Nullable(Uuid),
      reviewed_at: DateTime,
      remediation_type: NStr,
      cleared_sanctions_match: Type.Boolean(),
    }),
  ),
  created_at: DateTime,
  updated_at: DateTime,
  allowed_actions: MonitoringActionsSchema,
});

export const MonitoredListSchema = Type.Object({
  monitored_transactions: Type.Array(MonitoredTransactionSchema),
  records: Type.Integer({ description: 'Items on this page' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total: Type.Integer({ description: 'Items matching the filters' }),
  total_pages: Type.Integer(),
});

export const ListQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  q: Type.Optional(
    searchQuerySchema('client_reference, counterparty name, account identifier and customer external_id'),
  ),
  decision: Type.Optional(Type.Enum(DECISIONS)),
  direction: Type.Optional(Type.Enum(['inbound', 'outbound'] as const)),
  sanctions_hit: Type.Optional(Type.Boolean()),
  user_id: Type.Optional(Uuid),
  business_customer_id: Type.Optional(Uuid),
  remediation_status: Type.Optional(Type.Enum(['pending', 'submitted', 'expired'] as const)),
  ...dateRangeQuerySchema,
});

export const IdParams = Type.Object({ monitored_transaction_id: Uuid });
export const DocumentParams = Type.Object({ monitored_transaction_id: Uuid, document_id: Uuid });
export const FileSchema = fileResponse(
  'The uploaded document, of the type its bytes showed',
  ATTACHMENT_MEDIA_TYPES,
);

export const ReviewBodySchema = Type.Object(
  {
    decision: Type.Enum(['APPROVED', 'DECLINED', 'AWAITING_USER'] as const),
    note: Type.String({ minLength: 1, maxLength: 2000 }),
    remediation_type: Type.Optional(Type.Enum(REMEDIATION_TYPES)),
    clear_sanctions_match: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type ReviewInput = Type.Static<typeof ReviewBodySchema>;

export const TestBodySchema = Type.Object(
  { transaction: TransactionInputSchema, policy: Type.Optional(PolicyInputSchema) },
  { additionalProperties: false },
);
export const TestResultSchema = Type.Object(evaluationFields);

export const BacktestBodySchema = Type.Object({ policy: PolicyInputSchema }, { additionalProperties: false });
export const BacktestResultSchema = Type.Object({
  since: DateTime,
  evaluated: Type.Integer({ description: 'Monitored transactions replayed' }),
  truncated: Type.Boolean({
    description: 'True when more than the replay limit existed (the newest were replayed)',
  }),
  current_counts: Type.Record(Type.String(), Type.Integer()),
  counts: Type.Record(Type.String(), Type.Integer(), {
    description: 'Per decision under the candidate policy',
  }),
  changed: Type.Array(
    Type.Object({
      monitored_transaction_id: Uuid,
      client_reference: Type.String(),
      current_decision: Type.String(),
      decision: Type.String(),
      decision_reason: NStr,
      score: Type.Integer(),
    }),
  ),
});

export const SimulateBodySchema = Type.Object(
  { action: Type.Enum(['remediation_submitted', 'remediation_expired'] as const) },
  { additionalProperties: false },
);
