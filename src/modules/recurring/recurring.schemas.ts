/** Request and response schemas of /recurring-payments (they feed OpenAPI). */
import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema } from '../../shared/pagination';
import { RecurringActionsSchema, RunActionsSchema } from './recurring.actions';
import { MANDATE_STATUSES, RECURRING_STATUSES } from './recurring.machine';
import { PERIODS } from './recurring-limits.service';
import { FAILURE_REASONS, RUN_STATUSES } from './runs.machine';

const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const DateStr = (description?: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: description ?? 'YYYY-MM-DD' });
const Amount = (description?: string) =>
  Type.String({ maxLength: 32, description: description ?? 'Decimal string, e.g. "125.50"' });
const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), {
  maxProperties: 20,
  description: 'At most 20 keys, string values of at most 500 characters',
});
const DateTime = Type.String({ format: 'date-time' });

export const RecurringScheduleSchema = Type.Object(
  {
    interval: Type.Enum(['week', 'month', 'year']),
    interval_count: Type.Integer({ minimum: 1, maximum: 12 }),
    start_date: DateStr('Date of the first run'),
    day_of_month: Type.Optional(Type.Integer({ minimum: 1, maximum: 28 })),
    end_date: Type.Optional(DateStr('No run after this date')),
    max_runs: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

const retryPolicy = (patch: boolean) =>
  Type.Object(
    {
      // No default on PATCH: an omitted auto_retry keeps the current value.
      auto_retry: Type.Optional(patch ? Type.Boolean() : Type.Boolean({ default: true })),
      retry_after_hours: Type.Optional(
        Type.Array(Type.Integer({ minimum: 1, maximum: 8760 }), {
          maxItems: 5,
          description: 'Delays of the automatic retries; default SVC_RECURRING_RETRY_HOURS',
        }),
      ),
    },
    { additionalProperties: false },
  );
export const RetryPolicySchema = retryPolicy(false);
const PatchRetryPolicySchema = retryPolicy(true);

export const MandateInputSchema = Type.Object(
  {
    max_amount_per_payment: Amount('At least `amount`'),
    periodic_limit: Type.Object(
      {
        amount: Amount(),
        period: Type.Enum(PERIODS),
        alignment: Type.Enum(['calendar', 'consent']),
      },
      { additionalProperties: false },
    ),
    valid_to: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);

export const CreateRecurringBodySchema = Type.Object(
  {
    project_id: Uuid(),
    user_id: Type.Optional(Uuid('Payer (individual); exactly one of user_id and business_customer_id')),
    business_customer_id: Type.Optional(Uuid('Payer (business)')),
    currency: Type.String({ maxLength: 3, description: 'ISO 4217' }),
    amount: Type.Optional(Amount('Required with schedule')),
    schedule: Type.Optional(RecurringScheduleSchema),
    mandate: MandateInputSchema,
    description: Type.Optional(Type.String({ maxLength: 140 })),
    reference: Type.Optional(Type.String({ maxLength: 18, description: "Shown on the payer's statement" })),
    retry_policy: Type.Optional(RetryPolicySchema),
    redirect_url: Type.Optional(Type.String({ maxLength: 2000 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const PatchRecurringBodySchema = Type.Object(
  {
    amount: Type.Optional(Amount('Within the mandate')),
    schedule: Type.Optional(RecurringScheduleSchema),
    description: Type.Optional(Nullable(Type.String({ maxLength: 140 }))),
    retry_policy: Type.Optional(PatchRetryPolicySchema),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const PauseBodySchema = Type.Object(
  { resume_at: Type.Optional(DateTime) },
  { additionalProperties: false },
);
export const CancelBodySchema = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);
export const OnDemandRunBodySchema = Type.Object(
  { amount: Amount(), description: Type.Optional(Type.String({ maxLength: 140 })) },
  { additionalProperties: false },
);
export const RetryBodySchema = Type.Object(
  { run_id: Type.Optional(Uuid()) },
  { additionalProperties: false },
);
export const SimulateMandateBodySchema = Type.Object(
  { action: Type.Enum(['authorize', 'reject_authorization', 'revoke', 'expire_mandate']) },
  { additionalProperties: false },
);

export const IdemHeadersSchema = Type.Object({
  'x-idempotency-key': Type.Optional(Type.String({ maxLength: 255 })),
});

export const RecurringSchema = Type.Object({
  definition_id: Uuid(),
  status: Type.Enum(RECURRING_STATUSES),
  status_reason: Nullable(Type.String()),
  project_id: Uuid(),
  user_id: Nullable(Uuid()),
  business_customer_id: Nullable(Uuid()),
  currency: Type.String(),
  amount: Nullable(Type.String()),
  description: Nullable(Type.String()),
  reference: Nullable(Type.String()),
  schedule: Type.Union([RecurringScheduleSchema, Type.Null()]),
  retry_policy: Type.Object({ auto_retry: Type.Boolean(), retry_after_hours: Type.Array(Type.Integer()) }),
  redirect_url: Nullable(Type.String()),
  next_run_at: Nullable(DateTime),
  runs_count: Type.Integer(),
  paused_until: Nullable(DateTime),
  metadata: Type.Record(Type.String(), Type.String()),
  created_at: DateTime,
  canceled_at: Nullable(DateTime),
  mandate: Type.Object({
    max_amount_per_payment: Type.String(),
    periodic_limit: Type.Object({ amount: Type.String(), period: Type.String(), alignment: Type.String() }),
    valid_from: DateTime,
    valid_to: Nullable(DateTime),
    status: Type.Enum(MANDATE_STATUSES),
    bank_name: Nullable(Type.String()),
    authorized_at: Nullable(DateTime),
  }),
  authorization_url: Nullable(Type.String()),
  authorization_expires_at: Nullable(DateTime),
  allowed_actions: RecurringActionsSchema,
});

export const AttemptSchema = Type.Object({
  attempt_number: Type.Integer(),
  transaction_id: Nullable(Uuid()),
  trigger: Type.Enum(['schedule', 'on_demand', 'auto_retry', 'manual_retry']),
  retry_of_attempt: Type.Union([Type.Integer(), Type.Null()]),
  started_at: DateTime,
  finished_at: Nullable(DateTime),
  outcome: Type.Enum(['processing', 'succeeded', 'failed']),
  failure_reason: Type.Union([Type.Enum(FAILURE_REASONS), Type.Null()]),
});

export const RunSchema = Type.Object({
  run_id: Uuid(),
  definition_id: Uuid(),
  sequence: Type.Integer(),
  kind: Type.Enum(['scheduled', 'on_demand']),
  scheduled_for: DateTime,
  amount: Type.String(),
  currency: Type.String(),
  description: Nullable(Type.String()),
  status: Type.Enum(RUN_STATUSES),
  transaction_id: Nullable(Uuid()),
  failure_reason: Type.Union([Type.Enum(FAILURE_REASONS), Type.Null()]),
  will_retry: Type.Boolean(),
  next_retry_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
  attempts: Type.Array(AttemptSchema),
  replayed: Type.Optional(Type.Boolean()),
  allowed_actions: RunActionsSchema,
});

export const DefinitionParamsSchema = Type.Object({ definition_id: Uuid() });
export const RunParamsSchema = Type.Object({ definition_id: Uuid(), run_id: Uuid() });

export const RecurringListQuerySchema = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(RECURRING_STATUSES)),
  project_id: Type.Optional(Uuid()),
  user_id: Type.Optional(Uuid()),
  business_customer_id: Type.Optional(Uuid()),
});
export const RecurringListSchema = pageEnvelope('recurring_payments', RecurringSchema);
export const RunListQuerySchema = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(RUN_STATUSES)),
});
export const RunListSchema = pageEnvelope('runs', RunSchema);
