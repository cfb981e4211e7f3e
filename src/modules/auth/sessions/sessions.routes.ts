import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps';
import { clientAuthOf } from '../../../plugins/auth';
import { LoggedOutResponse, LogoutBody, RefreshBody, TokenPairResponse } from '../login/login.schemas';
import { logout, refreshSession } from './sessions.service';

export async function sessionRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/auth/refresh',
    {
      config: { auth: 'public', errors: [401, 403] },
      schema: {
        tags: ['auth'],
        summary: 'Exchange a refresh token for new tokens (rotation)',
        description:
          'Each refresh token works once: the response carries a new one. Presenting an already rotated token ' +
          'is treated as theft: 400 and the whole session (its refresh and access tokens) is revoked. ' +
          'Unknown, expired or revoked: 400 `Invalid refresh token`.',
        body: RefreshBody,
        response: { 200: TokenPairResponse },
      },
    },
    async (request) => refreshSession(deps, request.body.refresh_token),
  );

  r.post(
    '/auth/logout',
    {
      config: { auth: 'client', bodyless: true },
      schema: {
        tags: ['auth'],
        summary: 'Revoke the access token (and optionally its refresh session)',
        description:
          'The access token is revoked on every node (401 `Token has been revoked` afterwards). With refresh_token ' +
          'the refresh session ends too; it must belong to the current access token (400 otherwise; 400 for API credential tokens, which have no refresh session).',
        body: LogoutBody,
        response: { 200: LoggedOutResponse },
      },
      // The body is optional: a bare POST means "revoke this access token only".
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      await logout(deps, auth, request.body.refresh_token);
      return { logged_out: true as const };
    },
  );
}
