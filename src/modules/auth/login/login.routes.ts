import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps';
import {
  ChallengeBody,
  LoginBody,
  LoginResponse,
  SentResponse,
  TokenPairResponse,
  VerifyOtpBody,
} from './login.schemas';
import { login } from './login.service';
import { sendLoginEmailCode, verifyLoginOtp } from './login-challenge.service';

export async function loginRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/auth/login',
    {
      config: { auth: 'public', errors: [401, 403, 429] },
      schema: {
        tags: ['auth'],
        summary: 'Log in with email and password',
        description:
          'Without MFA returns a dashboard access token (30 min) and a refresh token (30 days). With MFA returns ' +
          'an `otp_pending` challenge (5 min); for the email method the code is emailed now. ' +
          '401 `Incorrect email or password`; 403 before email verification; 401 for a deactivated client or ' +
          'account; 403 on production without production access. Lockout: 5 failures for one email lock it ' +
          'for 5 minutes, 10 failures from one IP lock it for 60 seconds (429 with Retry-After).',
        body: LoginBody,
        response: { 200: LoginResponse },
      },
    },
    async (request) => login(deps, request.body, request.ip),
  );

  r.post(
    '/auth/login/verify-otp',
    {
      config: { auth: 'public', errors: [401, 403, 429] },
      schema: {
        tags: ['auth'],
        summary: 'Complete an MFA login',
        description:
          'Returns the same tokens as a login without MFA. 401 `Invalid OTP challenge payload` for an unknown, ' +
          'expired (5 min), used or dead challenge; a wrong code is 401 `Invalid OTP code` and counts: the ' +
          'fifth wrong code kills the challenge. method `email` needs a code that was emailed (400 otherwise). ' +
          'Lockout: 5 wrong codes for one account within 15 minutes, over any number of challenges, lock ' +
          'verify-otp for that account for 5 minutes (429 `Too many attempts, please try again in {N} seconds` ' +
          'with Retry-After); a completed MFA login clears the count.',
        body: VerifyOtpBody,
        response: { 200: TokenPairResponse },
      },
    },
    async (request) => verifyLoginOtp(deps, request.body),
  );

  r.post(
    '/auth/login/challenge/send-email-code',
    {
      config: { auth: 'public', errors: [401, 429] },
      schema: {
        tags: ['auth'],
        summary: 'Email a one-time code for a pending MFA login',
        description:
          'The email fallback (for example when the preferred method is TOTP), also usable to resend. A new code ' +
          'replaces the previous one; at most one per 60 seconds (429 with Retry-After). 400 when email is not ' +
          'among the allowed methods (the account uses TOTP only).',
        body: ChallengeBody,
        response: { 200: SentResponse },
      },
    },
    async (request) => sendLoginEmailCode(deps, request.body),
  );
}
