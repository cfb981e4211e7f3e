/** Request and response schemas of the activity-log routes (docs/guides/activity-logs.md). */
import { Type } from 'typebox';
import { fileResponse } from '../../shared/download';
import { dateRangeQuerySchema, pageQuerySchema, searchQuerySchema } from '../../shared/pagination';

export const ACTOR_TYPES = ['client_user', 'client_api', 'service_internal', 'system'] as const;
export const OUTCOMES = ['success', 'failure'] as const;

const uuid = Type.String({ format: 'uuid' });
const nullableString = Type.Union([Type.String(), Type.Null()]);

export { ErrorSchema } from '../../shared/error-schema';

/** The list's filters; the export takes exactly these too. */
export const activityFilterQuery = {
  q: Type.Optional(searchQuerySchema('the action, the target label and the actor email')),
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Action prefix, e.g. `team_member.` or `payment_link.created`',
    }),
  ),
  actor_type: Type.Optional(Type.Enum(ACTOR_TYPES)),
  actor_account_id: Type.Optional(uuid),
  credential_id: Type.Optional(uuid),
  target_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  outcome: Type.Optional(Type.Enum(OUTCOMES)),
  from: dateRangeQuerySchema.from,
  to: dateRangeQuerySchema.to,
};

export const ListActivityQuery = Type.Object(
  { ...pageQuerySchema(20, 200), ...activityFilterQuery },
  { additionalProperties: false },
);
export type ActivityFilterInput = Omit<Type.Static<typeof ListActivityQuery>, 'page' | 'page_size'>;

export const AdminListActivityQuery = Type.Object(
  { client_id: uuid, ...pageQuerySchema(20, 200), ...activityFilterQuery },
  { additionalProperties: false },
);

export const ExportActivityQuery = Type.Object(
  {
    format: Type.Enum(['csv', 'jsonl'] as const, {
      description: '`csv` (one header line) or `jsonl` (one entry per line, as on the detail route)',
    }),
    ...activityFilterQuery,
  },
  { additionalProperties: false },
);

export const ActivityIdParams = Type.Object({ activity_id: uuid }, { additionalProperties: false });

export const ActivityEntrySchema = Type.Object({
  activity_id: uuid,
  occurred_at: Type.String({ format: 'date-time' }),
  action: Type.String({ description: '`<resource>.<verb>`, e.g. `payment_link.created`' }),
  outcome: Type.Enum(OUTCOMES),
  actor: Type.Object({
    type: Type.Enum(ACTOR_TYPES),
    account_id: Type.Union([uuid, Type.Null()]),
    email: nullableString,
    credential_id: Type.Union([uuid, Type.Null()]),
    credential_label: nullableString,
  }),
  target: Type.Object({ type: nullableString, id: nullableString, label: nullableString }),
  request: Type.Object({
    request_id: nullableString,
    ip: nullableString,
    user_agent: nullableString,
    method: nullableString,
    path: nullableString,
  }),
  changes: Type.Union([
    Type.Record(Type.String(), Type.Object({ from: Type.Unknown(), to: Type.Unknown() })),
    Type.Null(),
  ]),
  metadata: Type.Record(Type.String(), Type.Unknown()),
});

export const ActivityListSchema = Type.Object({
  activity_logs: Type.Array(ActivityEntrySchema),
  records: Type.Integer({ description: 'Entries on this page' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total: Type.Integer({ description: 'Entries matching the filters' }),
  total_pages: Type.Integer(),
});

export const ExportSchema = fileResponse(
  'CSV (`format=csv`) or JSON Lines (`format=jsonl`), streamed',
  ['text/csv', 'application/x-ndjson'],
  'text',
);
