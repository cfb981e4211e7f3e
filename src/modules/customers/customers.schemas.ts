import { Type } from 'typebox';
import {
  ATTESTATION_STATUSES as EXTERNAL_STATUSES,
  KYB_STATUSES,
  KYC_STATUSES,
} from '../../db/schema/customers';
import { pageEnvelope, pageQuerySchema } from '../../shared/pagination';

export { EXTERNAL_STATUSES, KYB_STATUSES, KYC_STATUSES };

const nullableString = Type.Union([Type.String(), Type.Null()]);
const email = Type.String({ format: 'email', maxLength: 320, examples: ['jane@example.com'] });

export const UserSchema = Type.Object({
  user_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  first_name: nullableString,
  last_name: nullableString,
  external_ref: nullableString,
  kyc_status: Type.Enum(KYC_STATUSES),
  verification_mode: Type.Enum(['service_kyc', 'external_attestation'] as const),
  external_status: Type.Union([Type.Enum(EXTERNAL_STATUSES), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const CreateUserBody = Type.Object(
  {
    email,
    first_name: Type.String({ minLength: 1, maxLength: 100 }),
    last_name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
    external_ref: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 200, description: 'Your own reference for this user' }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

export const UserIdParams = Type.Object({ user_id: Type.String({ format: 'uuid' }) });

const q = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Free text, case-insensitive, over email, name and external_ref',
});

export const ListUsersQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  kyc_status: Type.Optional(Type.Enum(KYC_STATUSES, { description: 'Filter by KYC status' })),
  q: Type.Optional(q),
});
export const UserListSchema = pageEnvelope('users', UserSchema);

export const BusinessCustomerSchema = Type.Object({
  business_customer_id: Type.String({ format: 'uuid' }),
  company_name: Type.String(),
  registration_number: nullableString,
  country: Type.String(),
  email: Type.String(),
  kyb_status: Type.Enum(KYB_STATUSES),
  verification_mode: Type.Enum(['service_kyc', 'service_kyb', 'external_attestation'] as const),
  external_status: Type.Union([Type.Enum(EXTERNAL_STATUSES), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const CreateBusinessBody = Type.Object(
  {
    company_name: Type.String({ minLength: 1, maxLength: 300 }),
    registration_number: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]),
    ),
    country: Type.String({
      pattern: '^[A-Za-z]{2}$',
      description: 'ISO 3166-1 alpha-2 country of registration',
      examples: ['GB'],
    }),
    email,
  },
  { additionalProperties: false },
);

export const BusinessIdParams = Type.Object({ business_customer_id: Type.String({ format: 'uuid' }) });

export const ListBusinessesQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  kyb_status: Type.Optional(Type.Enum(KYB_STATUSES, { description: 'Filter by KYB status' })),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Free text, case-insensitive, over company name, email and registration number',
    }),
  ),
});
export const BusinessListSchema = pageEnvelope('business_customers', BusinessCustomerSchema);
