import { Type } from 'typebox';
import { PERMISSIONS, ROLES } from '../team/permissions.policy';

/** owner, operations or developer (spelled out so the static type is the Role union). */
export const RoleSchema = Type.Union(
  [Type.Literal(ROLES[0]), Type.Literal(ROLES[1]), Type.Literal(ROLES[2])],
  { description: 'owner, operations or developer' },
);

/** OpenAPI wording for endpoints protected by a security challenge. */
export const SECURITY_HEADERS_DOC =
  'Security challenge headers `X-Security-Token`, `X-Security-Code`, `X-Security-Method` (see POST /auth/security/request-code)';

export const CredentialIdParams = Type.Object({
  credential_id: Type.String({ format: 'uuid', description: 'The credential id' }),
});

export const CreateCredentialBody = Type.Object(
  {
    label: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A name for the credential, e.g. the integration using it',
      examples: ['Checkout backend'],
    }),
    role: Type.Optional(RoleSchema),
    permissions: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description:
          'A custom permission set instead of a role (exactly one of role and permissions). ' +
          `Known names: ${PERMISSIONS.join(', ')}. Unknown names are 422 with their loc. ` +
          'A custom credential is reported with role `developer` and this explicit list; its tokens carry exactly these permissions.',
        examples: [['payments.read', 'payments.refresh']],
      }),
    ),
  },
  { additionalProperties: false },
);

const CredentialProps = {
  credential_id: Type.String({ format: 'uuid' }),
  api_key: Type.String({ description: 'Public identifier, e.g. `pk_sandbox_...`' }),
  label: Type.String(),
  role: RoleSchema,
  permissions: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'The explicit permission set of a custom credential; null for a role credential',
  }),
  disabled: Type.Boolean(),
  disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Last successful token exchange',
  }),
};

export const CredentialSchema = Type.Object(CredentialProps);

export const CreatedCredentialSchema = Type.Object({
  ...CredentialProps,
  api_secret: Type.String({
    description: 'Returned only here and on reset-secret; store it server-side. Never retrievable again.',
  }),
});

export const CredentialListSchema = Type.Object({ credentials: Type.Array(CredentialSchema) });

export const ResetSecretResponse = Type.Object({
  credential_id: Type.String({ format: 'uuid' }),
  api_key: Type.String(),
  api_secret: Type.String({ description: 'The new secret; the old one stopped working' }),
});

export const ApiTokenBody = Type.Object(
  {
    api_key: Type.String({ minLength: 1, maxLength: 200 }),
    api_secret: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const ApiTokenResponse = Type.Object({
  access_token: Type.String({ description: 'JWT; send as `Authorization: Bearer <token>`' }),
  token_type: Type.Literal('bearer'),
  client_id: Type.String({ format: 'uuid' }),
  role: RoleSchema,
  environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
  expires_in: Type.Integer({ description: 'Seconds until the token expires (at most 7 days)' }),
});
