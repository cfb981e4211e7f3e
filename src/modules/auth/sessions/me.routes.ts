import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../../deps';
import { clientAuthOf } from '../../../plugins/auth';
import { PERMISSIONS } from '../team/permissions.policy';
import { describeCaller } from './me.service';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const MeResponse = Type.Object({
  client: Type.Object({
    client_id: Type.String({ format: 'uuid' }),
    company_name: Type.String(),
    email: Type.String(),
    status: Type.String(),
    is_active: Type.Boolean(),
    production_access_enabled: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
  }),
  account: Nullable(
    Type.Object(
      {
        account_id: Type.String({ format: 'uuid' }),
        email: Type.String(),
        full_name: Type.String(),
        role: Type.String(),
        is_active: Type.Boolean(),
        mfa_use_client_default: Type.Boolean(),
        totp_enrolled: Type.Boolean(),
        last_login_at: Nullable(Type.String({ format: 'date-time' })),
        created_at: Type.String({ format: 'date-time' }),
      },
      { description: 'The team member (login tokens); null for API credential tokens' },
    ),
  ),
  role: Type.String(),
  actor_type: Type.Union([Type.Literal('client_user'), Type.Literal('client_api')]),
  environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
  payment_currencies: Nullable(
    Type.Array(Type.String(), {
      description:
        "The deployment's payment currencies (SVC_PAYMENT_CURRENCIES); null when any currency of payment is accepted",
    }),
  ),
  permissions: Type.Array(Type.Enum(PERMISSIONS), {
    description: "The token's permissions (the SDK exports their union as `Permission`)",
  }),
  token_expires_at: Type.String({ format: 'date-time' }),
});

export async function meRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/auth/me',
    {
      config: { permission: 'account.read' },
      schema: {
        tags: ['auth'],
        summary: 'The caller: client, account, role, environment and permissions',
        response: { 200: MeResponse },
      },
    },
    async (request) => describeCaller(deps, clientAuthOf(request)),
  );
}
