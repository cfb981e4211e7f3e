/** Request and response schemas of wallet screening (docs/guides/screening.md). */
import { Type } from 'typebox';
import { RISK_CATEGORIES, RISK_LEVELS } from '../../providers/screening/port';
import { CHAINS } from '../../shared/chain-addresses';
import { pageQuerySchema, searchQuerySchema } from '../../shared/pagination';
import { MAGIC_ADDRESS_DOC } from './magic-addresses.policy';

const uuid = Type.String({ format: 'uuid' });
const dateTime = Type.String({ format: 'date-time' });
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export { ErrorSchema } from '../../shared/error-schema';
export const ChainSchema = Type.Enum(CHAINS);
export const AddressSchema = Type.String({
  minLength: 1,
  maxLength: 128,
  description: `Validated for the chain (EIP-55 when mixed case, base58check, bech32/bech32m, solana base58 of 32 bytes). ${MAGIC_ADDRESS_DOC}`,
});
const RiskLevel = Type.Enum(RISK_LEVELS);
const Category = Type.Enum(RISK_CATEGORIES);

const Exposure = Type.Object({
  category: Type.String(),
  direction: Type.Enum(['incoming', 'outgoing'] as const),
  exposure_type: Type.Enum(['direct', 'indirect'] as const),
  percentage: Type.Number({ description: '0-100' }),
  amount_usd: nullable(Type.String()),
});

export const ScreeningSchema = Type.Object({
  screening_id: uuid,
  wallet_id: uuid,
  chain: Type.String(),
  address: Type.String(),
  asset: nullable(Type.String()),
  status: Type.Enum(['pending', 'completed', 'failed'] as const),
  risk_level: nullable(RiskLevel),
  risk_score: nullable(Type.Integer()),
  sanctions_hit: nullable(Type.Boolean()),
  categories: nullable(Type.Array(Type.String())),
  exposures: nullable(Type.Array(Exposure)),
  cluster: nullable(Type.Object({ name: Type.String(), category: Type.String() })),
  risk_reasons: nullable(Type.Array(Type.String())),
  client_reference: nullable(Type.String()),
  user_id: nullable(uuid),
  business_customer_id: nullable(uuid),
  trigger: Type.Enum(['api', 'rescreen', 'monitoring', 'travel_rule'] as const),
  cached: Type.Boolean(),
  failure_reason: nullable(Type.String()),
  created_at: dateTime,
  completed_at: nullable(dateTime),
});

const walletFields = {
  wallet_id: uuid,
  chain: Type.String(),
  address: Type.String(),
  label: nullable(Type.String()),
  user_id: nullable(uuid),
  business_customer_id: nullable(uuid),
  monitored: Type.Boolean(),
  risk_level: RiskLevel,
  risk_score: nullable(Type.Integer()),
  sanctions_hit: nullable(Type.Boolean()),
  latest_screening_id: nullable(uuid),
  last_screened_at: nullable(dateTime),
  ownership_status: Type.Enum(['unverified', 'pending', 'verified', 'failed'] as const),
  ownership_method: nullable(Type.String()),
  ownership_verified_at: nullable(dateTime),
  created_at: dateTime,
  updated_at: dateTime,
};
export const WalletSchema = Type.Object(walletFields);
export const WalletDetailSchema = Type.Object({
  ...walletFields,
  screenings: Type.Array(ScreeningSchema, { description: 'The latest 20 screenings, newest first' }),
});
export const WalletListSchema = Type.Object({
  wallets: Type.Array(WalletSchema),
  records: Type.Integer({ description: 'Items on this page' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total: Type.Integer({ description: 'Items matching the filters' }),
  total_pages: Type.Integer(),
});

export const ScreenBody = Type.Object(
  {
    chain: ChainSchema,
    address: AddressSchema,
    asset: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{2,10}$' })),
    user_id: Type.Optional(uuid),
    business_customer_id: Type.Optional(uuid),
    client_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    monitor: Type.Optional(Type.Boolean({ default: false })),
    max_age_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604800, default: 0 })),
  },
  { additionalProperties: false },
);

export const PatchWalletBody = Type.Object(
  {
    label: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    monitored: Type.Optional(Type.Boolean()),
    user_id: Type.Optional(nullable(uuid)),
    business_customer_id: Type.Optional(nullable(uuid)),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ListWalletsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  q: Type.Optional(searchQuerySchema('address and label')),
  chain: Type.Optional(ChainSchema),
  risk_level: Type.Optional(RiskLevel),
  sanctions_hit: Type.Optional(Type.Boolean()),
  ownership_status: Type.Optional(Type.Enum(['unverified', 'pending', 'verified', 'failed'] as const)),
  monitored: Type.Optional(Type.Boolean()),
  user_id: Type.Optional(uuid),
  business_customer_id: Type.Optional(uuid),
});

export const SimulateScreeningBody = Type.Object(
  {
    risk_level: RiskLevel,
    sanctions_hit: Type.Optional(Type.Boolean()),
    categories: Type.Optional(Type.Array(Category, { maxItems: 14 })),
  },
  { additionalProperties: false },
);

export const ScreeningIdParams = Type.Object({ screening_id: uuid });
export const WalletIdParams = Type.Object({ wallet_id: uuid });
export const NotificationAckSchema = Type.Object({ received: Type.Boolean(), applied: Type.Boolean() });
