/**
 * The staff admin API under /api/v1/admin: staff tokens only (client tokens are 401 here, staff
 * tokens are 401 on client routes). The `svc admin ...` CLI calls the same service functions.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { NO_ACTIONS } from '../../platform/actions';
import { toPageParams } from '../../shared/pagination';
import { approveOpco, deactivateOpco, listOpcosForStaff, rejectOpco } from '../opcos/opco-review.service';
import { withOpcoActions } from '../opcos/opcos.actions';
import { OpcoIdParams, OpcoListSchema, OpcoSchema } from '../opcos/opcos.schemas';
import { ProjectIdParams, ProjectSchema } from '../projects/projects.schemas';
import { setProjectFrozen } from '../projects/projects.service';
import {
  AdminClientSchema,
  AdminOpcosQuery,
  ClientIdParams,
  ClientListSchema,
  ListClientsQuery,
  ReasonBody,
  SanctionsStatusSchema,
  SettingsBody,
  SettingsSchema,
  StaffLoginBody,
  StaffTokenSchema,
  UpdateClientBody,
  VisibilityGroupsBody,
  VisibilityGroupsSchema,
} from './admin.schemas';
import { getClient, listClients, setVisibilityGroups, updateClientSwitches } from './clients-admin.service';
import { isRegistrationEnabled, setRegistrationEnabled } from './platform-settings.service';
import { loginStaff } from './staff.service';

const tags = ['Admin (staff)'];
const staff = { auth: 'staff' as const };

export async function adminRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // Action bodies (reason) are optional: an empty request counts as `{}`.
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST' && (req.body === undefined || req.body === null)) req.body = {};
  });

  r.post(
    '/admin/auth/login',
    {
      config: { auth: 'public', errors: [401, 429] },
      schema: {
        tags,
        summary: 'Staff login',
        description: '5 failed attempts for one email lock it for 5 minutes (429).',
        body: StaffLoginBody,
        response: { 200: StaffTokenSchema },
      },
    },
    async (req) => loginStaff(deps, req.body.email, req.body.password),
  );

  r.get(
    '/admin/clients',
    {
      config: staff,
      schema: {
        tags,
        summary: 'List clients',
        querystring: ListClientsQuery,
        response: { 200: ClientListSchema },
      },
    },
    async (req) => listClients(deps, toPageParams(req.query, 20), req.query.q),
  );

  r.get(
    '/admin/sanctions/status',
    {
      config: staff,
      schema: {
        tags,
        summary: 'Sanctions lists status',
        description:
          'Every configured sanctions list (SVC_SANCTIONS_LISTS): its current version, entry count, when it was loaded, ' +
          'and the outcome of the last load. A failed load keeps the current version and shows its error here.',
        response: { 200: SanctionsStatusSchema },
      },
    },
    async () => ({
      configured: deps.providers.sanctions.configured,
      match_threshold: deps.config.sanctions.matchThreshold,
      lists: await deps.providers.sanctions.status(deps),
    }),
  );

  r.get(
    '/admin/clients/:client_id',
    {
      config: staff,
      schema: { tags, summary: 'Get a client', params: ClientIdParams, response: { 200: AdminClientSchema } },
    },
    async (req) => getClient(deps, req.params.client_id),
  );

  r.patch(
    '/admin/clients/:client_id',
    {
      config: staff,
      schema: {
        tags,
        summary: 'Change client switches',
        description:
          'Production access, payment-link and KYC-link generation, active flag, and the named-area `features` switches.',
        params: ClientIdParams,
        body: UpdateClientBody,
        response: { 200: AdminClientSchema },
      },
    },
    async (req) => updateClientSwitches(deps, req.params.client_id, req.body),
  );

  r.put(
    '/admin/clients/:client_id/visibility-groups',
    {
      config: staff,
      schema: {
        tags,
        summary: 'Set verification visibility groups',
        params: ClientIdParams,
        body: VisibilityGroupsBody,
        response: { 200: VisibilityGroupsSchema },
      },
    },
    async (req) => setVisibilityGroups(deps, req.params.client_id, req.body.groups),
  );

  for (const [action, frozen] of [
    ['freeze', true],
    ['unfreeze', false],
  ] as const) {
    r.post(
      `/admin/projects/:project_id/${action}`,
      {
        config: staff,
        schema: {
          tags,
          summary: frozen ? 'Freeze a project' : 'Unfreeze a project',
          description:
            'Emits project.frozen_changed (actor_type service_internal) when the flag changes; idempotent.',
          params: ProjectIdParams,
          body: ReasonBody,
          response: { 200: ProjectSchema },
        },
      },
      async (req) => setProjectFrozen(deps, req.params.project_id, frozen, req.body.reason ?? null),
    );
  }

  r.get(
    '/admin/opcos',
    {
      config: staff,
      schema: {
        tags,
        summary: 'List opcos of every client',
        description: 'E.g. `status=pending_superadmin_review` for the review queue.',
        querystring: AdminOpcosQuery,
        response: { 200: OpcoListSchema },
      },
    },
    async (req) => {
      const list = await listOpcosForStaff(deps, toPageParams(req.query, 20), req.query.status);
      return { ...list, opcos: list.opcos.map((o) => withOpcoActions(o, NO_ACTIONS)) };
    },
  );

  const opcoActions = { approve: approveOpco, reject: rejectOpco, deactivate: deactivateOpco } as const;
  for (const [action, run] of Object.entries(opcoActions)) {
    r.post(
      `/admin/opcos/:opco_id/${action}`,
      {
        config: { ...staff, errors: [409] },
        schema: {
          tags,
          summary: `${action[0]!.toUpperCase()}${action.slice(1)} an opco`,
          description:
            action === 'approve'
              ? 'pending_superadmin_review -> awaiting_approval (with Token.io: registers the opco as a Sub-TPP; ' +
                "Token.io's review then activates or rejects it); awaiting_approval -> activated (assigns sub_tpp_id) " +
                'once the payment network approved it (409 while it is still reviewing).'
              : action === 'reject'
                ? 'pending_superadmin_review or awaiting_approval -> rejected.'
                : 'activated -> deactivated.',
          params: OpcoIdParams,
          body: ReasonBody,
          response: { 200: OpcoSchema },
        },
      },
      async (req) =>
        withOpcoActions(await run(deps, req.params.opco_id, req.body.reason ?? null), NO_ACTIONS),
    );
  }

  r.get(
    '/admin/settings',
    { config: staff, schema: { tags, summary: 'Platform settings', response: { 200: SettingsSchema } } },
    async () => ({ registration_enabled: await isRegistrationEnabled(deps) }),
  );

  r.put(
    '/admin/settings',
    {
      config: staff,
      schema: {
        tags,
        summary: 'Change platform settings',
        body: SettingsBody,
        response: { 200: SettingsSchema },
      },
    },
    async (req) => {
      await setRegistrationEnabled(deps.db, req.body.registration_enabled);
      return { registration_enabled: await isRegistrationEnabled(deps) };
    },
  );
}
