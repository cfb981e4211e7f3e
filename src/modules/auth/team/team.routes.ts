import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../../deps';
import { clientAuthOf } from '../../../plugins/auth';
import { SECURITY_HEADERS_DOC } from '../api-keys/credentials.schemas';
import { verifySecurityChallenge } from '../security-challenges/security-challenges.service';
import {
  AccountIdParams,
  AccountListSchema,
  AccountSchema,
  CreateAccountBody,
  UpdateAccountBody,
} from './team.schemas';
import { createTeamAccount, deleteTeamAccount, listTeamAccounts, updateTeamAccount } from './team.service';

export async function teamRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/auth/team/accounts',
    {
      config: { permission: 'team.write', dashboardOnly: true, errors: [502] },
      schema: {
        tags: ['team'],
        summary: 'Add a team member',
        description:
          `${SECURITY_HEADERS_DOC}, action ADD_MEMBER. The new member is emailed a generated temporary password. ` +
          'If the email cannot be delivered the account is not created (502). A duplicate email is 400.',
        body: CreateAccountBody,
        response: { 201: AccountSchema },
      },
    },
    async (request, reply) => {
      const auth = clientAuthOf(request);
      const challengeId = await verifySecurityChallenge(deps, request, auth, 'ADD_MEMBER');
      return reply.status(201).send(await createTeamAccount(deps, auth, request.body, challengeId));
    },
  );

  r.get(
    '/auth/team/accounts',
    {
      config: { permission: 'team.read', dashboardOnly: true },
      schema: {
        tags: ['team'],
        summary: 'List team accounts',
        description: 'All accounts of the client, oldest first (inactive ones included).',
        response: { 200: AccountListSchema },
      },
    },
    async (request) => ({ accounts: await listTeamAccounts(deps, clientAuthOf(request).clientId) }),
  );

  r.patch(
    '/auth/team/accounts/:account_id',
    {
      config: { permission: 'team.write', dashboardOnly: true },
      schema: {
        tags: ['team'],
        summary: 'Update a team member (role, name, active)',
        description:
          `${SECURITY_HEADERS_DOC}, action UPDATE_MEMBER. Demoting or deactivating the last active owner is 400. ` +
          'A role change or deactivation applies to the member’s live tokens at once.',
        params: AccountIdParams,
        body: UpdateAccountBody,
        response: { 200: AccountSchema },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      const challengeId = await verifySecurityChallenge(deps, request, auth, 'UPDATE_MEMBER');
      return updateTeamAccount(deps, auth, request.params.account_id, request.body, challengeId);
    },
  );

  r.delete(
    '/auth/team/accounts/:account_id',
    {
      config: { permission: 'team.write', dashboardOnly: true },
      schema: {
        tags: ['team'],
        summary: 'Delete a team member',
        description: `${SECURITY_HEADERS_DOC}, action DELETE_MEMBER. The last active owner and the calling account cannot be deleted (400).`,
        params: AccountIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      const auth = clientAuthOf(request);
      const challengeId = await verifySecurityChallenge(deps, request, auth, 'DELETE_MEMBER');
      await deleteTeamAccount(deps, auth, request.params.account_id, challengeId);
      return reply.status(204).send(null);
    },
  );
}
