import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../../deps';
import { clientAuthOf } from '../../../plugins/auth';
import { requestSecurityCode, SECURITY_ACTIONS } from './security-challenges.service';

const RequestCodeBody = Type.Object(
  {
    action: Type.Union(
      SECURITY_ACTIONS.map((a) => Type.Literal(a)),
      { description: 'The protected action this challenge authorizes' },
    ),
    method: Type.Union([Type.Literal('email'), Type.Literal('totp')], {
      description: '`email`: a 6-digit code is emailed; `totp`: use the current authenticator code',
    }),
  },
  { additionalProperties: false },
);

const RequestCodeResponse = Type.Object({
  challenge_token: Type.String({ description: 'Send as X-Security-Token with the protected request' }),
  action: Type.String(),
  method: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
});

export async function securityRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/auth/security/request-code',
    {
      config: { permission: 'security.challenge', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Request a security challenge for a sensitive action',
        description:
          'Valid 5 minutes, bound to the calling account and the action; 5 wrong codes invalidate it. ' +
          'The protected request then carries X-Security-Token, X-Security-Code and X-Security-Method.',
        body: RequestCodeBody,
        response: { 200: RequestCodeResponse },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      return requestSecurityCode(
        deps,
        { clientId: auth.clientId, accountId: auth.accountId! },
        request.body.action,
        request.body.method,
      );
    },
  );
}
