/** Request and response schemas of wallet ownership requests (docs/guides/screening.md). */
import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema, searchQuerySchema } from '../../shared/pagination';
import { sanctionsNameMatches, sanctionsScreeningSchema } from '../../shared/sanctions-match-schema';
import { OwnershipActionsSchema } from './ownership.actions';
import { OWNERSHIP_METHODS, OWNERSHIP_STATUSES } from './ownership.machine';
import { AddressSchema, ChainSchema } from './screening.schemas';

const uuid = Type.String({ format: 'uuid' });
const dateTime = Type.String({ format: 'date-time' });
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Method = Type.Enum(OWNERSHIP_METHODS);

export const OwnershipSchema = Type.Object({
  request_id: uuid,
  wallet_id: uuid,
  chain: Type.String(),
  address: Type.String(),
  status: Type.Enum(OWNERSHIP_STATUSES),
  methods: Type.Array(Type.String()),
  method: nullable(Type.String()),
  user_id: nullable(uuid),
  business_customer_id: nullable(uuid),
  proof_url: Type.String(),
  challenge: Type.Object({ message: Type.String(), nonce: Type.String() }),
  satoshi_test: nullable(
    Type.Object({
      deposit_address: Type.String(),
      amount: Type.String(),
      asset: Type.String(),
      expires_at: dateTime,
    }),
  ),
  attempts_remaining: Type.Integer(),
  failure_reason: nullable(Type.String()),
  redirect_url: nullable(Type.String()),
  delivery: Type.Enum(['email', 'none'] as const),
  client_reference: nullable(Type.String()),
  assurance: nullable(
    Type.String({ description: '`low` for a self declaration, `high` for a verified signature' }),
  ),
  declarant_sanctions_matches: sanctionsNameMatches(
    "A self declaration's declarant name screened against the sanctions lists: the hits (empty: none); null when not screened. Reported, never decided on.",
  ),
  declarant_sanctions_screening: sanctionsScreeningSchema(
    "A self declaration's declarant name: screened, or not_configured (the deployment has no sanctions lists); null for other methods",
  ),

  expires_at: dateTime,
  verified_at: nullable(dateTime),
  created_at: dateTime,
  allowed_actions: OwnershipActionsSchema,
});
export const OwnershipListSchema = pageEnvelope('ownership_requests', OwnershipSchema);

export const CreateOwnershipBody = Type.Object(
  {
    chain: ChainSchema,
    address: AddressSchema,
    user_id: Type.Optional(uuid),
    business_customer_id: Type.Optional(uuid),
    methods: Type.Optional(
      Type.Array(Method, {
        minItems: 1,
        maxItems: 3,
        description:
          'Default: message_signing and satoshi_test where the chain supports message signing (EVM chains, solana), ' +
          'else satoshi_test. With a screening provider that cannot observe deposits (Chainalysis), satoshi_test ' +
          'is not offered: the default is message_signing, else self_declaration, and asking for satoshi_test is 400',
      }),
    ),
    expires_in_seconds: Type.Optional(Type.Integer({ minimum: 300, maximum: 604800 })),
    redirect_url: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 })),
    delivery: Type.Optional(Type.Enum(['email', 'none'] as const, { default: 'none' })),
    client_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const ProofBody = Type.Object(
  {
    method: Method,
    signature: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'EVM: EIP-191 personal_sign, 0x r‖s‖v hex. solana: ed25519, base58, hex or base64.',
      }),
    ),
    declarant_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const ListOwnershipQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(OWNERSHIP_STATUSES)),
  chain: Type.Optional(ChainSchema),
  user_id: Type.Optional(uuid),
  business_customer_id: Type.Optional(uuid),
  q: Type.Optional(searchQuerySchema('address')),
});

export const SimulateOwnershipBody = Type.Object(
  { action: Type.Enum(['deposit_received', 'deposit_wrong_amount', 'expire'] as const) },
  { additionalProperties: false },
);

export const RequestIdParams = Type.Object({ request_id: uuid });
