import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../../deps';
import { clientAuthOf } from '../../../plugins/auth';
import { changePassword } from './password.service';

const ChangePasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 256 }),
    new_password: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'At least 8 characters, different from the current one',
    }),
  },
  { additionalProperties: false },
);

const ChangePasswordResponse = Type.Object({
  password_changed: Type.Literal(true),
  password_changed_at: Type.String({ format: 'date-time' }),
});

export async function passwordRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/auth/team/accounts/me/change-password',
    {
      config: { permission: 'account.password', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Change the caller’s password (security challenge CHANGE_PASSWORD)',
        description:
          'Needs X-Security-Token, X-Security-Code and X-Security-Method of a CHANGE_PASSWORD challenge. ' +
          '422 for a new password under 8 characters; 400 `Current password is incorrect` (counts as a failed ' +
          'challenge attempt); 400 `New password must be different from current password`. Every other ' +
          'session of the account is signed out.',
        body: ChangePasswordBody,
        response: { 200: ChangePasswordResponse },
      },
    },
    async (request) => changePassword(deps, clientAuthOf(request), request, request.body),
  );
}
