import { Type } from 'typebox';

const Method = Type.Union([Type.Literal('email'), Type.Literal('totp')]);

const settingsFields = {
  mfa_enabled: Type.Boolean({ description: 'Require a second factor at login' }),
  email_enabled: Type.Boolean({ description: 'Emailed one-time codes allowed' }),
  totp_enabled: Type.Boolean({ description: 'Authenticator app (TOTP) codes allowed' }),
  preferred_method: Method,
};

export const MfaSettingsResponse = Type.Object(settingsFields);

export const MfaSettingsBody = Type.Object(
  {
    mfa_enabled: Type.Optional(settingsFields.mfa_enabled),
    email_enabled: Type.Optional(settingsFields.email_enabled),
    totp_enabled: Type.Optional(settingsFields.totp_enabled),
    preferred_method: Type.Optional(Method),
  },
  { additionalProperties: false, description: 'Omitted fields keep their current value' },
);

export const MyMfaBody = Type.Object(
  {
    mfa_use_client_default: Type.Optional(
      Type.Boolean({
        description: 'true: the client defaults apply; false: the account settings below apply',
      }),
    ),
    mfa_enabled: Type.Optional(settingsFields.mfa_enabled),
    email_enabled: Type.Optional(settingsFields.email_enabled),
    totp_enabled: Type.Optional(settingsFields.totp_enabled),
    preferred_method: Type.Optional(Method),
  },
  { additionalProperties: false, description: 'Omitted fields keep their current value' },
);

export const MyMfaResponse = Type.Object({
  mfa_use_client_default: Type.Boolean(),
  ...settingsFields,
  totp_enrolled: Type.Boolean(),
  totp_enrolled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  effective: Type.Object(
    {
      source: Type.Union([Type.Literal('client_default'), Type.Literal('account')]),
      mfa_enabled: Type.Boolean(),
      methods: Type.Array(Method),
      preferred_method: Method,
    },
    { description: 'What the next login asks for' },
  ),
});

export const EnrollStartResponse = Type.Object({
  secret: Type.String({ description: 'Base32 TOTP secret (shown once; scan the URI or type it in)' }),
  otpauth_uri: Type.String(),
  enrollment_token: Type.String({ description: 'Send to /auth/mfa/totp/enroll/confirm within 10 minutes' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const EnrollConfirmBody = Type.Object(
  {
    enrollment_token: Type.String({ minLength: 1, maxLength: 200 }),
    otp_code: Type.String({
      pattern: '^[0-9]{6}$',
      description: 'Current 6-digit code of the authenticator',
    }),
  },
  { additionalProperties: false },
);
