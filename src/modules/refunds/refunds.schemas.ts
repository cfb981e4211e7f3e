/** Request and response schemas of the refunds endpoints (they are the OpenAPI document too). */
import { Type } from 'typebox';
import { REFUND_RECONCILIATION_STATES } from '../../db/schema/index';
import { dateRangeQuerySchema, pageEnvelope, pageQuerySchema } from '../../shared/pagination';
import { RefundActionsSchema } from './refunds.actions';
import { REFUND_STATUSES } from './refunds.machine';

const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export { ErrorSchema } from '../../shared/error-schema';

export const RefundSchema = Type.Object(
  {
    refund_id: Uuid('Stable key of the refund (also its reference at the payment network)'),
    transaction_id: Uuid('The refunded payment'),
    project_id: Uuid("The payment's project"),
    amount: Type.String({
      description: 'Decimal string in major units of the currency ("25.00"; never minor units)',
      examples: ['25.00'],
    }),
    currency: Type.String({
      minLength: 3,
      maxLength: 3,
      description: "The payment's currency",
      examples: ['EUR'],
    }),
    status: Type.Enum(REFUND_STATUSES, {
      description:
        '`pending` (written, not yet handed to the payment network; cancelable), `processing` (the network ' +
        'has it), `succeeded` (money sent back), `failed` (see failure_reason), `canceled`',
    }),
    reason: Nullable(Type.String({ description: "The merchant's reason, as given" })),
    failure_reason: Nullable(
      Type.String({ description: 'Why the network refused or failed it; null unless failed' }),
    ),
    reconciliation_state: Type.Enum(REFUND_RECONCILIATION_STATES, {
      description:
        '`none`, or `manual_review_required`: the payment network cannot say whether the money moved (no final ' +
        'status, or an earlier attempt it cannot find). The refund stays `processing` and its amount stays held ' +
        'against the payment; check with the bank before refunding again. A later final status clears it.',
    }),
    review_reason: Nullable(
      Type.String({ description: 'Why the refund is held for manual review; null unless held' }),
    ),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    submitted_at: Nullable(
      Type.String({ format: 'date-time', description: 'When it was handed to the payment network' }),
    ),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    allowed_actions: RefundActionsSchema,
  },
  { description: 'A refund of a paid payment' },
);

export const RefundListSchema = pageEnvelope('refunds', RefundSchema);

export const TransactionRefundListSchema = Type.Object({
  transaction_id: Uuid(),
  refunds: Type.Array(RefundSchema),
});

export const CreateRefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.String({
        description:
          'Decimal string in major units of the payment currency, greater than 0, within the currency precision ' +
          'and at most the refundable amount (the payment amount less its pending, processing and succeeded ' +
          'refunds). Absent: the whole refundable amount.',
        examples: ['25.00'],
      }),
    ),
    currency: Type.Optional(
      Type.String({ description: "Optional check: must be the payment's currency", examples: ['EUR'] }),
    ),
    reason: Type.Optional(
      Type.String({
        maxLength: 140,
        description: 'Shown to the payer as the remittance text where the network allows (may be trimmed)',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Free-form key/value data, returned as given and in the refund webhooks',
        maxProperties: 50,
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ amount: '25.00', reason: 'Returned item', metadata: { order_id: '42' } }],
  },
);

export const RefundHeadersSchema = Type.Object({
  'x-idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Required and non-empty; the same key with the same body replays the original refund',
    }),
  ),
});

export const RefundParamsSchema = Type.Object({ refund_id: Uuid() });
export const RefundTransactionParamsSchema = Type.Object({ transaction_id: Uuid() });

export const RefundListQuerySchema = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(REFUND_STATUSES)),
  transaction_id: Type.Optional(Uuid('Only refunds of this payment')),
  project_id: Type.Optional(Uuid('Only refunds of payments of this project')),
  reconciliation_state: Type.Optional(
    Type.Enum(REFUND_RECONCILIATION_STATES, {
      description: 'Only refunds in this reconciliation state, e.g. `manual_review_required`',
    }),
  ),
  ...dateRangeQuerySchema,
});

export const RefundSimulateBody = Type.Object(
  {
    outcome: Type.Enum(['succeeded', 'failed'] as const, {
      description: 'What the sandbox bank reports for the processing refund: `succeeded` or `failed`',
    }),
  },
  { additionalProperties: false },
);
