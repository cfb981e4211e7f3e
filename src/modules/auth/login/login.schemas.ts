import { Type } from 'typebox';

const Method = Type.Union([Type.Literal('email'), Type.Literal('totp')]);

export const LoginBody = Type.Object(
  {
    client_email: Type.String({ minLength: 1, maxLength: 254, examples: ['founder@acme.example'] }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

export const TokenPairResponse = Type.Object(
  {
    access_token: Type.String({ description: 'Dashboard access token (JWT), valid 30 minutes' }),
    refresh_token: Type.String({ description: 'Opaque refresh token, valid 30 days, single use (rotates)' }),
    token_type: Type.Literal('bearer'),
    expires_in: Type.Integer({ description: 'Access token lifetime in seconds', examples: [1800] }),
  },
  { description: 'Signed in' },
);

export const OtpPendingResponse = Type.Object(
  {
    token_type: Type.Literal('otp_pending'),
    challenge_token: Type.String({ description: 'Send to /auth/login/verify-otp within 5 minutes' }),
    requires_mfa: Type.Literal(true),
    allowed_mfa_methods: Type.Array(Method),
    preferred_mfa_method: Method,
    expires_at: Type.String({ format: 'date-time' }),
  },
  {
    description:
      'Password accepted; a second factor is required. With preferred method email the code was emailed.',
  },
);

export const LoginResponse = Type.Union([TokenPairResponse, OtpPendingResponse]);

export const VerifyOtpBody = Type.Object(
  {
    challenge_token: Type.String({ minLength: 1, maxLength: 200 }),
    otp_code: Type.String({
      minLength: 1,
      maxLength: 16,
      description: '6-digit emailed or authenticator code',
    }),
    method: Method,
  },
  { additionalProperties: false },
);

export const ChallengeBody = Type.Object(
  { challenge_token: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const SentResponse = Type.Object({ sent: Type.Literal(true) });

export const RefreshBody = Type.Object(
  { refresh_token: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const LogoutBody = Type.Object(
  {
    refresh_token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Also end this refresh session (must be the caller’s)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const LoggedOutResponse = Type.Object({ logged_out: Type.Literal(true) });
