import { Type } from 'typebox';
import { RoleSchema } from '../api-keys/credentials.schemas';

export const AccountIdParams = Type.Object({
  account_id: Type.String({ format: 'uuid', description: 'The team account id' }),
});

export const CreateAccountBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254, examples: ['jane@merchant.example'] }),
    full_name: Type.String({ minLength: 1, maxLength: 200, examples: ['Jane Doe'] }),
    role: RoleSchema,
  },
  { additionalProperties: false },
);

export const UpdateAccountBody = Type.Object(
  {
    role: Type.Optional(RoleSchema),
    full_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    is_active: Type.Optional(
      Type.Boolean({
        description: 'false deactivates: the member can no longer sign in and live tokens get 401',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AccountSchema = Type.Object({
  account_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  full_name: Type.String(),
  role: RoleSchema,
  is_active: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  last_login_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const AccountListSchema = Type.Object({ accounts: Type.Array(AccountSchema) });
