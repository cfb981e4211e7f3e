import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps';
import {
  RegisterBody,
  RegisterResponse,
  ResendBody,
  SentResponse,
  VerifyEmailBody,
  VerifyEmailResponse,
} from './registration.schemas';
import { registerClient, resendVerification, verifyEmail } from './registration.service';

export async function registrationRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/auth/register',
    {
      config: { auth: 'public', errors: [403] },
      schema: {
        tags: ['auth'],
        summary: 'Register a client and its owner account',
        description:
          'Creates the client and its owner account pending email verification and emails a 6-digit code ' +
          'valid 24 hours. Login is refused (403) until the code is verified. 403 when registration is ' +
          'disabled; 400 `Client account email already exists` for a registered email; 422 for a password ' +
          'shorter than 8 characters. 503 when the email cannot be sent (nothing is kept; retry).',
        body: RegisterBody,
        response: { 201: RegisterResponse },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return registerClient(deps, request.body);
    },
  );

  r.post(
    '/auth/register/verify-email',
    {
      config: { auth: 'public', errors: [429] },
      schema: {
        tags: ['auth'],
        summary: 'Verify the registration email with the emailed code',
        description:
          'Activates the client. A wrong, expired (24 h) or used code is 400 `Invalid or expired verification code`; ' +
          'after 5 wrong attempts the code is dead and a new one must be requested.',
        body: VerifyEmailBody,
        response: { 200: VerifyEmailResponse },
      },
    },
    async (request) => verifyEmail(deps, request.body),
  );

  r.post(
    '/auth/register/resend-verification',
    {
      config: { auth: 'public', errors: [429] },
      schema: {
        tags: ['auth'],
        summary: 'Email a new verification code',
        description:
          'Always 200 `{sent: true}`, whether or not the address is registered and pending. One request per ' +
          'email address per 60 seconds (also counting the registration itself); inside the cooldown 429 ' +
          'with Retry-After.',
        body: ResendBody,
        response: { 200: SentResponse },
      },
    },
    async (request) => resendVerification(deps, request.body),
  );
}
