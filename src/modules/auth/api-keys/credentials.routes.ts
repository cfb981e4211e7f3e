import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps';
import { clientAuthOf } from '../../../plugins/auth';
import { verifySecurityChallenge } from '../security-challenges/security-challenges.service';
import {
  ApiTokenBody,
  ApiTokenResponse,
  CreateCredentialBody,
  CreatedCredentialSchema,
  CredentialIdParams,
  CredentialListSchema,
  CredentialSchema,
  ResetSecretResponse,
  SECURITY_HEADERS_DOC,
} from './credentials.schemas';
import {
  createApiCredential,
  disableApiCredential,
  exchangeApiToken,
  listApiCredentials,
  resetApiCredentialSecret,
} from './credentials.service';

export async function credentialsRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/auth/api-token',
    {
      config: { auth: 'public', errors: [401, 403, 429] },
      schema: {
        tags: ['auth'],
        summary: 'Exchange an API key and secret for an access token',
        description:
          'Server-to-server authentication. Wrong key or secret, or a disabled credential: 401 ' +
          '`Invalid API key or secret` (the spec lists this message under 400 and 401; the service answers 401). ' +
          'Five failures on one key lock it for 5 minutes: 429 with Retry-After and X-RateLimit-* headers. ' +
          'On a production deployment a client without production access gets 403.',
        body: ApiTokenBody,
        response: { 200: ApiTokenResponse },
      },
    },
    async (request) => exchangeApiToken(deps, request.body.api_key, request.body.api_secret),
  );

  r.post(
    '/auth/api-credentials',
    {
      config: { permission: 'credentials.write', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Create an API credential',
        description:
          'Give exactly one of `role` or `permissions`. The secret appears only in this response (and on reset-secret).',
        body: CreateCredentialBody,
        response: { 201: CreatedCredentialSchema },
      },
    },
    async (request, reply) => {
      const auth = clientAuthOf(request);
      const created = await createApiCredential(deps, auth, request.body);
      return reply.status(201).send(created);
    },
  );

  r.get(
    '/auth/api-credentials',
    {
      config: { permission: 'credentials.read', dashboardOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'List API credentials (never their secrets)',
        description: 'Newest first, disabled ones included (`disabled: true`).',
        response: { 200: CredentialListSchema },
      },
    },
    async (request) => ({ credentials: await listApiCredentials(deps, clientAuthOf(request).clientId) }),
  );

  r.post(
    '/auth/api-credentials/:credential_id/reset-secret',
    {
      config: { permission: 'credentials.write', dashboardOnly: true, bodyless: true },
      schema: {
        tags: ['auth'],
        summary: 'Rotate the secret of an API credential',
        description:
          `${SECURITY_HEADERS_DOC}, action REFRESH_API_KEY. The old secret stops at once and tokens issued ` +
          'before the rotation (second precision) are refused. A disabled credential cannot be rotated (400).',
        params: CredentialIdParams,
        response: { 200: ResetSecretResponse },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      const challengeId = await verifySecurityChallenge(deps, request, auth, 'REFRESH_API_KEY');
      return resetApiCredentialSecret(deps, auth.clientId, request.params.credential_id, challengeId);
    },
  );

  r.post(
    '/auth/api-credentials/:credential_id/disable',
    {
      config: { permission: 'credentials.write', dashboardOnly: true, bodyless: true },
      schema: {
        tags: ['auth'],
        summary: 'Disable an API credential for good',
        description:
          'Idempotent. The credential can no longer exchange tokens and its issued tokens get 401 at once.',
        params: CredentialIdParams,
        response: { 200: CredentialSchema },
      },
    },
    async (request) =>
      disableApiCredential(deps, clientAuthOf(request).clientId, request.params.credential_id),
  );
}
