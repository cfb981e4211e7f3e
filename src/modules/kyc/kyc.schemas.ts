/** Request and response schemas of the KYC/KYB verification endpoints (they are the OpenAPI document too). */
import { Type } from 'typebox';
import { RECORD_STATUSES, SIMULATED_OUTCOMES } from '../../providers/verification/port';
import { fileResponse, MEDIA } from '../../shared/download';
import { ATTESTATION_STATUSES } from './kyc.machine';

const NStr = Type.Union([Type.String(), Type.Null()]);
const NNum = Type.Union([Type.Number(), Type.Null()]);
const NInt = Type.Union([Type.Integer(), Type.Null()]);
const AnyObject = Type.Object({}, { additionalProperties: true });
const NObj = Type.Union([AnyObject, Type.Null()]);

export { ErrorSchema } from '../../shared/error-schema';

export const VerificationRecordSchema = Type.Object({
  verification_id: Type.String({
    format: 'uuid',
    description: 'The verification (link) this record belongs to',
  }),
  status: Type.Enum(RECORD_STATUSES),
  kind: Type.Enum(['kyc', 'kyb'] as const),
  data_trusted: Type.Boolean(),
  fetched_at: Type.String({ format: 'date-time' }),
  decision_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  first_name: NStr,
  last_name: NStr,
  full_name: NStr,
  date_of_birth: NStr,
  nationality: NStr,
  document_type: NStr,
  document_issuing_country: NStr,
  document_expiry: NStr,
  gender: NStr,
  liveness_status: NStr,
  liveness_score: NNum,
  face_match_status: NStr,
  face_match_score: NNum,
  nfc_status: NStr,
  poa_status: NStr,
  aml_status: NStr,
  aml_total_hits: NInt,
  document_number: Type.Union([Type.String(), Type.Null()], {
    description: 'Visibility group `document_number`',
  }),
  sof_questionnaire: Type.Union([AnyObject, Type.Null()], {
    description: 'Visibility group `sof_questionnaire`',
  }),
  poa: Type.Union([AnyObject, Type.Null()], { description: 'Visibility group `poa`' }),
  aml_hits: Type.Union([Type.Array(AnyObject), Type.Null()], { description: 'Visibility group `aml_hits`' }),
  documents: Type.Union(
    [
      Type.Array(
        Type.Object({ file_role: Type.String(), file_name: Type.String(), content_type: Type.String() }),
      ),
      Type.Null(),
    ],
    { description: 'Visibility group `documents`: downloadable roles' },
  ),
  company_name: NStr,
  registration_number: NStr,
  registration_country: NStr,
  company_type: NStr,
  incorporation_date: NStr,
  registry_status: NStr,
  business_registry_details: NObj,
  business_key_people: Type.Union([Type.Array(AnyObject), Type.Null()]),
});

export const HistorySchema = Type.Object({ records: Type.Array(VerificationRecordSchema) });

export const UserIdParams = Type.Object({ user_id: Type.String({ format: 'uuid' }) });
export const BusinessIdParams = Type.Object({ business_customer_id: Type.String({ format: 'uuid' }) });
export const KybDetailParams = Type.Object({ business_id: Type.String({ format: 'uuid' }) });
export const VerificationIdParams = Type.Object({ verification_id: Type.String({ format: 'uuid' }) });
export const LevelIdParams = Type.Object({ level_id: Type.String({ format: 'uuid' }) });
export const DocumentParams = Type.Object({
  user_id: Type.String({ format: 'uuid' }),
  file_role: Type.String({ pattern: '^[a-z0-9_]{1,64}$', examples: ['passport'] }),
});
export const QuestionnaireFileParams = Type.Object({
  user_id: Type.String({ format: 'uuid' }),
  qfile_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' }),
});

export const LinkBody = Type.Object(
  {
    level: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'A level name from GET /kyc/levels (or /kyb/levels)',
      }),
    ),
    redirect_url: Type.Optional(
      Type.Union([
        Type.String({
          format: 'uri',
          pattern: '^https?://',
          maxLength: 2000,
          description: 'Where the hosted page sends the person afterwards (`verification_id` appended)',
        }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

export const LinkSchema = Type.Object({
  verification_id: Type.String({ format: 'uuid' }),
  verification_url: Type.String({
    description: 'The hosted verification page: {SVC_PUBLIC_URL}/verify/{token}',
  }),
  expires_at: Type.String({ format: 'date-time' }),
  status: Type.Literal('pending'),
});

export const AttestationBody = Type.Object(
  {
    status: Type.Enum(ATTESTATION_STATUSES),
    reference: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    note: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const SimulateBody = Type.Object(
  {
    outcome: Type.Enum(SIMULATED_OUTCOMES),
    checks: Type.Optional(
      Type.Object(
        {
          liveness: Type.Optional(Type.Boolean()),
          face_match: Type.Optional(Type.Boolean()),
          nfc: Type.Optional(Type.Boolean()),
          poa: Type.Optional(Type.Boolean()),
          aml_hits: Type.Optional(
            Type.Integer({ minimum: 0, maximum: 100, description: 'AML screening ran with this many hits' }),
          ),
        },
        {
          additionalProperties: false,
          description: 'Which checks ran (omitted: every check of the level, AML with 0 hits)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const LevelSchema = Type.Object({
  level_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'Null for built-in levels',
  }),
  name: Type.String(),
  kind: Type.Enum(['kyc', 'kyb'] as const),
  description: NStr,
  checks: Type.Array(Type.String()),
  custom: Type.Boolean(),
  created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const LevelListSchema = Type.Object({ levels: Type.Array(LevelSchema) });

export const CustomLevelBody = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$',
      description: 'Unique per client (case-insensitive), not a built-in name',
    }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    checks: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20 }),
  },
  { additionalProperties: false },
);

export const NotificationAckSchema = Type.Object({
  received: Type.Boolean(),
  applied: Type.Boolean({
    description:
      'False for replays, out-of-order notifications and unknown sessions, and while the re-read of the result is still running',
  }),
});

export const FileSchema = fileResponse('The file as the provider returned it', MEDIA.verificationFile);
