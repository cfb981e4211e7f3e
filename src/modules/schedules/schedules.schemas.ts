/** Request and response schemas of /payment-schedules (they feed OpenAPI). */
import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema } from '../../shared/pagination';
import { InstalmentActionsSchema, ScheduleActionsSchema } from './schedules.actions';
import { INSTALMENT_STATUSES, SCHEDULE_STATUSES } from './schedules.machine';

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

export const CreateScheduleBodySchema = Type.Object(
  {
    project_id: Uuid(),
    user_id: Type.Optional(Uuid('Payer (individual); exactly one of user_id and business_customer_id')),
    business_customer_id: Type.Optional(Uuid('Payer (business)')),
    currency: Type.String({ maxLength: 3, description: 'ISO 4217' }),
    description: Type.Optional(Type.String({ maxLength: 140 })),
    instalments: Type.Optional(
      Type.Array(Type.Object({ amount: Amount(), due_date: DateStr() }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: 60,
      }),
    ),
    plan: Type.Optional(
      Type.Object(
        {
          total_amount: Amount(),
          count: Type.Integer({ minimum: 2, maximum: 60 }),
          interval: Type.Enum(['week', 'month']),
          start_date: DateStr('Due date of the first instalment'),
        },
        { additionalProperties: false },
      ),
    ),
    issue_days_before: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 30, description: 'Default SVC_SCHEDULE_ISSUE_DAYS_BEFORE' }),
    ),
    grace_days: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 60, description: 'Default SVC_SCHEDULE_GRACE_DAYS' }),
    ),
    delivery: Type.Enum(['email', 'none'], { default: 'email' }),
    reminders: Type.Boolean({ default: true }),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const PatchScheduleBodySchema = Type.Object(
  {
    description: Type.Optional(Nullable(Type.String({ maxLength: 140 }))),
    delivery: Type.Optional(Type.Enum(['email', 'none'])),
    reminders: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const PatchInstalmentBodySchema = Type.Object(
  { amount: Type.Optional(Amount()), due_date: Type.Optional(DateStr()) },
  { additionalProperties: false },
);

export const CancelScheduleBodySchema = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);

export const SimulateInstalmentBodySchema = Type.Object(
  { action: Type.Enum(['overdue']) },
  { additionalProperties: false },
);

export const IdemHeadersSchema = Type.Object({
  'x-idempotency-key': Type.Optional(Type.String({ maxLength: 255, description: 'Required' })),
});

export const InstalmentSchema = Type.Object({
  instalment_id: Uuid(),
  sequence: Type.Integer(),
  amount: Type.String(),
  due_date: Type.String(),
  issue_at: Type.String({ format: 'date-time' }),
  status: Type.Enum(INSTALMENT_STATUSES),
  transaction_id: Nullable(Uuid()),
  checkout_url: Nullable(Type.String()),
  link_number: Type.Integer(),
  issue_error: Nullable(Type.String()),
  paid_at: Nullable(Type.String({ format: 'date-time' })),
  allowed_actions: InstalmentActionsSchema,
});

export const ScheduleSchema = Type.Object({
  schedule_id: Uuid(),
  status: Type.Enum(SCHEDULE_STATUSES),
  project_id: Uuid(),
  user_id: Nullable(Uuid()),
  business_customer_id: Nullable(Uuid()),
  currency: Type.String(),
  total_amount: Type.String(),
  amount_paid: Type.String(),
  description: Nullable(Type.String()),
  issue_days_before: Type.Integer(),
  grace_days: Type.Integer(),
  delivery: Type.Enum(['email', 'none']),
  reminders: Type.Boolean(),
  metadata: Type.Record(Type.String(), Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  canceled_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  instalments: Type.Array(InstalmentSchema),
  allowed_actions: ScheduleActionsSchema,
});

export const ScheduleParamsSchema = Type.Object({ schedule_id: Uuid() });
export const InstalmentParamsSchema = Type.Object({ schedule_id: Uuid(), instalment_id: Uuid() });

export const ScheduleListQuerySchema = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(SCHEDULE_STATUSES)),
  project_id: Type.Optional(Uuid()),
  user_id: Type.Optional(Uuid()),
  business_customer_id: Type.Optional(Uuid()),
});
export const ScheduleListSchema = pageEnvelope('payment_schedules', ScheduleSchema);
