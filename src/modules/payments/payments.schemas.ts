/** Request and response schemas of the payments endpoints (they are the OpenAPI document too). */
import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema, prefixSearchQuerySchema } from '../../shared/pagination';
import { ORIGIN_TYPES } from './origin.policy';
import { TransactionActionsSchema } from './payments.actions';
import {
  MANUAL_REVIEW_SIGNAL,
  PROVIDER_STATUSES,
  RECONCILIATION_STATES,
  TRANSACTION_STATUSES,
} from './payments.machine';
import { SANDBOX_OUTCOMES } from './sandbox-outcome.policy';

const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export { ErrorSchema } from '../../shared/error-schema';

export const TransactionSchema = Type.Object(
  {
    transaction_id: Uuid('Stable key of the payment'),
    ref_id: Type.String({
      description:
        'Reference of the current payment session; changes when the payer restarts an expired session',
    }),
    transfer_id: Nullable(
      Type.String({
        description: 'Payment network identifier of the current session; null until the payer picked a bank',
      }),
    ),
    amount: Type.String({
      description:
        'Decimal string in major units of the currency ("125.50" is 125 euros 50 cents; never minor units)',
      examples: ['125.50'],
    }),
    currency: Type.String({ minLength: 3, maxLength: 3, examples: ['EUR'] }),
    user_id: Nullable(Uuid()),
    business_customer_id: Nullable(Uuid()),
    project_id: Uuid(),
    contract_request_id: Nullable(Uuid()),
    status: Type.Enum(TRANSACTION_STATUSES),
    provider_status: Nullable(
      Type.String({ description: 'Detail status (see the mapping table); `unknown` never appears here' }),
    ),
    reconciliation_state: Type.Enum(RECONCILIATION_STATES),
    status_reason: Nullable(Type.String()),
    description: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    origin: Type.Object(
      {
        type: Type.Enum(ORIGIN_TYPES, {
          description:
            '`paylink` for POST /checkout/paylink; otherwise the platform feature that created the payment',
        }),
        id: Nullable(
          Uuid(
            'The creating resource (bulk job, schedule, recurring payment, workflow run, contract request)',
          ),
        ),
      },
      { description: 'What created this payment' },
    ),
    checkout_url: Type.String({ description: 'Hosted checkout page of this payment' }),
    redirect_url: Nullable(
      Type.String({
        description:
          "Where the payer returns after checkout instead of the client's callback_url; null when not set",
      }),
    ),
    expires_at: Type.String({ format: 'date-time' }),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
    refunded_amount: Type.String({
      description: 'Decimal string: the sum of the succeeded refunds of this payment ("0.00" when none)',
      examples: ['0.00'],
    }),
    refundable_amount: Type.String({
      description:
        'Decimal string: what can still be refunded, the amount less the pending, processing and succeeded ' +
        'refunds ("0.00" unless the payment succeeded)',
      examples: ['125.50'],
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    allowed_actions: TransactionActionsSchema,
  },
  { description: 'A payment' },
);

export const PaylinkBodySchema = Type.Object(
  {
    amount: Type.String({
      description:
        'Decimal string in major units of the currency: "125.50" is 125 euros 50 cents, and "1250" is ' +
        "1,250.00, not 12.50 (never minor units; a JSON number is refused). Greater than 0, within the currency precision and at most the deployment's maximum " +
        'per payment (SVC_PAYMENT_MAX_AMOUNT, default 1000000.00)',
      examples: ['125.50'],
    }),
    currency: Type.String({
      description:
        'Upper-case ISO 4217 code of a currency of payment (not XAU/XAG/XPT/XPD, XXX/XTS, funds codes or ' +
        "units of account such as XDR), among the deployment's currencies (SVC_PAYMENT_CURRENCIES)",
      examples: ['EUR'],
    }),
    project_id: Uuid('Project the payment belongs to (bound to an activated opco)'),
    user_id: Type.Optional(Uuid('Payer (individual); exactly one of user_id and business_customer_id')),
    business_customer_id: Type.Optional(
      Uuid('Payer (business); exactly one of user_id and business_customer_id'),
    ),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    expires_in_seconds: Type.Integer({
      minimum: 60,
      maximum: 30 * 86400,
      default: 86400,
      description: 'Link lifetime (default 24 h)',
    }),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Free-form key/value data, returned as given and in payment.status_changed webhooks',
        maxProperties: 50,
      }),
    ),
    contract_request_id: Type.Optional(
      Uuid(
        'A completed contract request of yours this payment belongs to (another state: 400; unknown: 404)',
      ),
    ),
    redirect_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          "Where this payment's payer returns after checkout, instead of the client's callback_url (which " +
          'must still be set). Absolute URL, https on production (http is accepted in the sandbox); ' +
          '`transaction_id` is appended like on the callback URL. The payer may come back before the final ' +
          'webhook: read the transaction (GET /transactions/{transaction_id}) on return.',
        examples: ['https://shop.example.com/orders/42/paid'],
      }),
    ),
  },
  {
    additionalProperties: false,
    // A body that passes validation as it stands (exactly one payer), for "Try it out" and generators.
    examples: [
      {
        amount: '12.50',
        currency: 'EUR',
        project_id: '01a20648-ba4e-756e-beac-314a16dd9f87',
        user_id: '01a20648-ba87-7668-a9bd-5e5a12ec5582',
        description: 'Order 42',
        metadata: { order_id: '42' },
      },
    ],
  },
);

export const PaylinkHeadersSchema = Type.Object({
  'x-idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Required and non-empty; the same key with the same body replays the original',
    }),
  ),
});

export const TransactionParamsSchema = Type.Object({ transaction_id: Uuid() });

export const TransactionListQuerySchema = Type.Object({
  ...pageQuerySchema(10, 200),
  status: Type.Optional(Type.Enum(TRANSACTION_STATUSES)),
  project_id: Type.Optional(Uuid()),
  user_id: Type.Optional(Uuid()),
  origin_type: Type.Optional(Type.Enum(ORIGIN_TYPES, { description: 'Only payments created this way' })),
  reconciliation_state: Type.Optional(
    Type.Enum(RECONCILIATION_STATES, {
      description: 'Only payments in this reconciliation state, e.g. `manual_review_required`',
    }),
  ),
  contract_request_id: Type.Optional(Uuid('Only payments of this contract request')),
  q: Type.Optional(
    prefixSearchQuerySchema(
      'the reference (ref_id), the description or the payer email, or the exact transaction_id',
    ),
  ),
});

export const TransactionListSchema = pageEnvelope('transactions', TransactionSchema);

export const StatusEventSchema = Type.Object({
  status_event_id: Uuid(),
  transaction_id: Uuid(),
  previous_status: Nullable(Type.String({ description: 'Null on the creation entry' })),
  status: Type.String(),
  provider_status: Nullable(
    Type.String({ description: 'Detail status; `unknown` for an unrecognized upstream code' }),
  ),
  reconciliation_state: Type.String(),
  kind: Type.String({
    description: 'created, transition, detail, manual_review, ignored, session_restarted',
  }),
  reason: Nullable(Type.String()),
  ref_id: Nullable(Type.String()),
  actor_type: Nullable(Type.String()),
  actor_account_id: Nullable(Type.String()),
  occurred_at: Type.String({ format: 'date-time' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const StatusEventListSchema = Type.Object({
  transaction_id: Uuid(),
  status_events: Type.Array(StatusEventSchema),
});

export const SimulateBodySchema = Type.Object(
  {
    provider_status: Type.Optional(
      Type.Enum([...PROVIDER_STATUSES, MANUAL_REVIEW_SIGNAL], {
        description: `Any detail status of the mapping table, or \`${MANUAL_REVIEW_SIGNAL}\` to put the payment into manual review`,
      }),
    ),
    outcome: Type.Optional(
      Type.Enum(SANDBOX_OUTCOMES, {
        description:
          'Shortcut: the sandbox bank walks the payment along the real path (a pending payment is first ' +
          'authorized at the bank, `awaiting_bank_authorization`) and then reports the final detail status ' +
          '(`completed`, `rejected`, `rejected_insufficient_funds`, `expired` or `canceled`). It also resolves ' +
          'a payment held for manual review (reconciliation_state back to `none`). Give either this or provider_status.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const NotificationAckSchema = Type.Object({
  received: Type.Boolean(),
  applied: Type.Boolean({
    description: 'False when the notification concerns no current session (e.g. a replaced ref_id)',
  }),
});
