import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema } from '../../shared/pagination';
import { FEATURE_AREAS, FEATURES } from '../features/features.service';
import { OPCO_STATUSES } from '../opcos/opcos.machine';
import { VISIBILITY_GROUPS } from './clients-admin.service';

export const StaffLoginBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const StaffTokenSchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
});

const group = Type.Enum(VISIBILITY_GROUPS);

export const AdminClientSchema = Type.Object({
  client_id: Type.String({ format: 'uuid' }),
  company_name: Type.String(),
  email: Type.String(),
  status: Type.String(),
  is_active: Type.Boolean(),
  production_access_enabled: Type.Boolean(),
  payment_links_enabled: Type.Boolean(),
  kyc_links_enabled: Type.Boolean(),
  visibility_groups: Type.Array(group),
  features: Type.Object(
    Object.fromEntries(FEATURES.map((f) => [f, Type.Boolean()])) as Record<
      string,
      ReturnType<typeof Type.Boolean>
    >,
    { description: 'Effective named-area switches (staff overrides over the environment defaults)' },
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const ListClientsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Company name, email or client id' }),
  ),
});
export const ClientListSchema = pageEnvelope('clients', AdminClientSchema);

export const ClientIdParams = Type.Object({ client_id: Type.String({ format: 'uuid' }) });

export const UpdateClientBody = Type.Object(
  {
    production_access_enabled: Type.Optional(Type.Boolean()),
    payment_links_enabled: Type.Optional(Type.Boolean()),
    kyc_links_enabled: Type.Optional(Type.Boolean()),
    is_active: Type.Optional(Type.Boolean()),
    features: Type.Optional(
      Type.Object(
        Object.fromEntries(
          FEATURES.map((f) => [f, Type.Optional(Type.Boolean({ description: `${FEATURE_AREAS[f]} area` }))]),
        ) as Record<string, ReturnType<typeof Type.Optional<ReturnType<typeof Type.Boolean>>>>,
        {
          additionalProperties: false,
          description:
            'Named-area switches to change (the others keep their value). All default to true in sandbox; in production travel_rule and recurring_payments default to false.',
        },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const VisibilityGroupsBody = Type.Object(
  { groups: Type.Array(group, { uniqueItems: true, description: 'The complete set of granted groups' }) },
  { additionalProperties: false },
);
export const VisibilityGroupsSchema = Type.Object({ groups: Type.Array(group) });

export const ReasonBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) },
  { additionalProperties: false },
);

export const SettingsBody = Type.Object(
  {
    // One schema with both types: with type coercion on, an anyOf of boolean and null would turn
    // null into false (or false into null), whichever branch comes first.
    registration_enabled: Type.Unsafe<boolean | null>({
      type: ['boolean', 'null'],
      description: 'null returns to the SVC_REGISTRATION_ENABLED default',
    }),
  },
  { additionalProperties: false },
);
export const SettingsSchema = Type.Object({ registration_enabled: Type.Boolean() });

export const AdminOpcosQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(OPCO_STATUSES)),
});

const NullableStr = Type.Union([Type.String(), Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

/** GET /admin/sanctions/status: every configured sanctions list, its current version and last load. */
export const SanctionsStatusSchema = Type.Object({
  configured: Type.Boolean({ description: 'False: no list is configured (screening answers 503)' }),
  match_threshold: Type.Integer({
    description: 'The default match threshold (SVC_SANCTIONS_MATCH_THRESHOLD)',
  }),
  lists: Type.Array(
    Type.Object({
      list: Type.String({
        description: '`sandbox`, `ofac_sdn`, `ofac_consolidated`, `eu_fsf`, `uk_sanctions_list` or `un_sc`',
      }),
      name: Type.String(),
      source: Type.String({
        description: "The URL's origin and path (never its query), `file` or `built in`",
      }),
      version: NullableStr,
      published_at: Type.Union([
        Type.String({ description: "The list's own publication date" }),
        Type.Null(),
      ]),
      entry_count: NullableInt,
      added_count: NullableInt,
      removed_count: NullableInt,
      loaded_at: NullableStr,
      age_seconds: NullableInt,
      stale: Type.Boolean({
        description:
          'No version yet, or not confirmed current (loaded, or its file found unchanged) within SVC_SANCTIONS_MAX_AGE_HOURS: screening answers 503 meanwhile',
      }),
      last_attempt_at: NullableStr,
      last_success_at: NullableStr,
      last_error: Type.Union([
        Type.String({ description: 'Why the last load failed (the current version stayed)' }),
        Type.Null(),
      ]),
      last_error_at: NullableStr,
      retry_not_before: Type.Optional(
        Type.Union([
          Type.String({
            description:
              'The list server answered 429 or 503 with Retry-After (honoured up to SVC_SANCTIONS_MAX_RETRY_AFTER_SECONDS): no download before this',
          }),
          Type.Null(),
        ]),
      ),
    }),
  ),
});
