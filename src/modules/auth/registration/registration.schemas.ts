import { Type } from 'typebox';

const Email = Type.String({ format: 'email', maxLength: 254, examples: ['founder@acme.example'] });

export const RegisterBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 256, description: 'At least 8 characters' }),
    company_name: Type.String({ minLength: 1, maxLength: 200 }),
    full_name: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const RegisterResponse = Type.Object({
  client_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  status: Type.Literal('pending_verification'),
});

export const VerifyEmailBody = Type.Object(
  {
    email: Email,
    code: Type.String({ minLength: 1, maxLength: 16, description: 'The 6-digit code from the email' }),
  },
  { additionalProperties: false },
);

export const VerifyEmailResponse = Type.Object({ verified: Type.Literal(true) });

export const ResendBody = Type.Object({ email: Email }, { additionalProperties: false });

export const SentResponse = Type.Object({ sent: Type.Literal(true) });
