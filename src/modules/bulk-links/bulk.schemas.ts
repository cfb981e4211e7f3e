/** Request and response schemas of /checkout/paylink/bulk (they feed OpenAPI). */
import { Type } from 'typebox';
import { fileResponse, MEDIA } from '../../shared/download';
import { pageEnvelope, pageQuerySchema } from '../../shared/pagination';
import { JobActionsSchema } from './bulk.actions';
import { JOB_STATUSES, ROW_STATUSES } from './bulk.machine';
import { BASE_COLUMNS, MAX_ROWS } from './bulk-columns.schemas';

const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = () => Nullable(Type.String({ format: 'date-time' }));

export const DefaultsSchema = Type.Object(
  {
    project_id: Type.Optional(Uuid()),
    currency: Type.Optional(Type.String({ minLength: 1, maxLength: 3 })),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    expires_in_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 30 * 86400 })),
  },
  { additionalProperties: false, description: 'Values for rows that leave these columns empty' },
);

export const BulkCreateBodySchema = Type.Object(
  {
    rows: Type.Optional(
      Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        description: `Up to ${MAX_ROWS} rows with the keys ${BASE_COLUMNS.join(', ')}, metadata.<key> (or a metadata object)`,
      }),
    ),
    file: Type.Optional(
      Type.Object(
        {
          file_name: Type.String({ minLength: 1, maxLength: 255, description: '.csv or .xlsx' }),
          content_base64: Type.String({
            description: 'The file, base64-encoded (SVC_BULK_PAYLINK_MAX_FILE_BYTES at most)',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    defaults: Type.Optional(DefaultsSchema),
    create_missing_users: Type.Boolean({
      default: false,
      description: 'Create a user from `email` when the row names no existing payer',
    }),
    preview: Type.Boolean({ default: false, description: 'Validate only; POST …/confirm queues the job' }),
  },
  { additionalProperties: false },
);

export const IdemHeadersSchema = Type.Object({
  'x-idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Required: the same key and body replay the original answer',
    }),
  ),
});

const CountsSchema = Type.Object({
  total: Type.Integer(),
  valid: Type.Integer(),
  invalid: Type.Integer(),
  pending: Type.Integer(),
  created: Type.Integer(),
  failed: Type.Integer(),
  canceled: Type.Integer(),
});

export const JobSchema = Type.Object({
  bulk_id: Uuid(),
  status: Type.Enum(JOB_STATUSES),
  source: Type.Enum(['json', 'csv', 'xlsx']),
  file_name: Nullable(Type.String()),
  defaults: Type.Record(Type.String(), Type.Unknown()),
  create_missing_users: Type.Boolean(),
  warnings: Type.Array(Type.String()),
  preview_expires_at: DateTime(),
  created_at: Type.String({ format: 'date-time' }),
  confirmed_at: DateTime(),
  started_at: DateTime(),
  finished_at: DateTime(),
  canceled_at: DateTime(),
  counts: CountsSchema,
  allowed_actions: JobActionsSchema,
});

export const RowErrorSchema = Type.Object({
  field: Nullable(Type.String()),
  value: Type.Unknown(),
  msg: Type.String(),
});

export const RowSchema = Type.Object({
  row_number: Type.Integer(),
  reference: Nullable(Type.String()),
  status: Type.Enum(ROW_STATUSES),
  input: Type.Record(Type.String(), Type.Unknown()),
  transaction_id: Nullable(Uuid()),
  checkout_url: Nullable(Type.String()),
  attempts: Type.Integer(),
  errors: Type.Array(RowErrorSchema),
  updated_at: Type.String({ format: 'date-time' }),
});

export const BulkParamsSchema = Type.Object({ bulk_id: Uuid() });

export const JobListQuerySchema = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(JOB_STATUSES)),
});
export const JobListSchema = pageEnvelope('bulk_jobs', JobSchema);

export const RowListQuerySchema = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(ROW_STATUSES)),
});
export const RowListSchema = pageEnvelope('rows', RowSchema);

export const ResultsQuerySchema = Type.Object({
  status: Type.Optional(
    Type.String({ maxLength: 200, description: 'Comma-separated row statuses, e.g. `failed,invalid`' }),
  ),
});

export const RetryBodySchema = Type.Object(
  {
    row_numbers: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ROWS }), { maxItems: MAX_ROWS, uniqueItems: true }),
    ),
    rows_patch: Type.Optional(
      Type.Array(
        Type.Object(
          { row_number: Type.Integer({ minimum: 1, maximum: MAX_ROWS }) },
          {
            additionalProperties: true,
            description: 'row_number plus the columns to replace (null clears one)',
          },
        ),
        { maxItems: MAX_ROWS },
      ),
    ),
  },
  { additionalProperties: false },
);

export const CancelBodySchema = Type.Object(
  {
    cancel_created_links: Type.Boolean({
      default: false,
      description: 'Also cancel the pending intents of links already created',
    }),
  },
  { additionalProperties: false },
);

export const CsvSchema = fileResponse('A CSV file (UTF-8)', MEDIA.csv, 'text');
