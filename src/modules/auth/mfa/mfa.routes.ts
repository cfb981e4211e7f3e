import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps';
import { clientAuthOf } from '../../../plugins/auth';
import {
  EnrollConfirmBody,
  EnrollStartResponse,
  MfaSettingsBody,
  MfaSettingsResponse,
  MyMfaBody,
  MyMfaResponse,
} from './mfa.schemas';
import {
  confirmTotpEnrollment,
  disableTotp,
  getClientDefaults,
  getMyMfa,
  startTotpEnrollment,
  updateClientDefaults,
  updateMyMfa,
} from './mfa.service';

const RULES =
  ' Rules (400): when MFA is enabled at least one method must be enabled; preferred method totp requires totp enabled.';

export async function mfaRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/auth/mfa/client-defaults',
    {
      config: { permission: 'mfa.defaults.read', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Read the client MFA defaults (owner, operations)',
        response: { 200: MfaSettingsResponse },
      },
    },
    async (request) => getClientDefaults(deps, clientAuthOf(request).clientId),
  );

  r.put(
    '/auth/mfa/client-defaults',
    {
      config: { permission: 'mfa.defaults.write', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Change the client MFA defaults (owner, operations)',
        description:
          'Apply to every account with mfa_use_client_default true. Members without an enrolled authenticator ' +
          'fall back to email codes.' +
          RULES,
        body: MfaSettingsBody,
        response: { 200: MfaSettingsResponse },
      },
    },
    async (request) => updateClientDefaults(deps, clientAuthOf(request).clientId, request.body),
  );

  r.get(
    '/auth/mfa/me',
    {
      config: { permission: 'account.mfa', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Read the caller’s MFA settings and what applies at login',
        response: { 200: MyMfaResponse },
      },
    },
    async (request) => getMyMfa(deps, clientAuthOf(request)),
  );

  r.put(
    '/auth/mfa/me',
    {
      config: { permission: 'account.mfa', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Change the caller’s MFA settings',
        description: 'TOTP cannot be enabled before enrolling an authenticator (400).' + RULES,
        body: MyMfaBody,
        response: { 200: MyMfaResponse },
      },
    },
    async (request) => updateMyMfa(deps, clientAuthOf(request), request.body),
  );

  r.post(
    '/auth/mfa/totp/enroll/start',
    {
      config: { permission: 'account.mfa', dashboardOnly: true, bodyless: true },
      schema: {
        tags: ['auth'],
        summary: 'Start enrolling an authenticator app',
        description:
          'Returns a new secret and an enrollment token valid 10 minutes. 400 when already enrolled.',
        response: { 200: EnrollStartResponse },
      },
    },
    async (request) => startTotpEnrollment(deps, clientAuthOf(request)),
  );

  r.post(
    '/auth/mfa/totp/enroll/confirm',
    {
      config: { permission: 'account.mfa', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Confirm the authenticator with its current code',
        description:
          'Stores the secret (encrypted) and enables TOTP. 400 `TOTP enrollment challenge is invalid or expired`, ' +
          '400 `Invalid authenticator code` (5 wrong codes end the enrollment).',
        body: EnrollConfirmBody,
        response: { 200: MyMfaResponse },
      },
    },
    async (request) => confirmTotpEnrollment(deps, clientAuthOf(request), request.body),
  );

  r.post(
    '/auth/mfa/totp/disable',
    {
      config: { permission: 'account.mfa', dashboardOnly: true, bodyless: true },
      schema: {
        tags: ['auth'],
        summary: 'Remove the authenticator (security challenge DISABLE_TOTP)',
        description:
          'Needs X-Security-Token, X-Security-Code and X-Security-Method of a DISABLE_TOTP challenge. ' +
          'TOTP is disabled and the preferred method becomes email.',
        response: { 200: MyMfaResponse },
      },
    },
    async (request) => disableTotp(deps, clientAuthOf(request), request),
  );
}
