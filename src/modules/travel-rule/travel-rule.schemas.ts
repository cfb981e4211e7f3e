/** Request and response schemas of the travel rule (docs/guides/travel-rule.md); they feed OpenAPI. */
import { Type } from 'typebox';
import { SANDBOX_VASP_DOC } from '../../providers/travel-rule/simulator';
import { CHAINS } from '../../shared/chain-addresses';
import {
  dateRangeQuerySchema,
  pageEnvelope,
  pageQuerySchema,
  searchQuerySchema,
} from '../../shared/pagination';
import { sanctionsNameMatches, sanctionsScreeningSchema } from '../../shared/sanctions-match-schema';
import { TransferActionsSchema } from './allowed-actions.view';
import { TRANSFER_STATUSES } from './travel-rule.machine';

export { SANDBOX_VASP_DOC };

const uuid = Type.String({ format: 'uuid' });
const dateTime = Type.String({ format: 'date-time' });
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const str = (max: number, min = 1) => Type.String({ minLength: min, maxLength: max });
const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' });
const FiatAmount = Type.String({
  pattern: '^(0|[1-9]\\d{0,14})(\\.\\d{1,2})?$',
  description: 'Decimal string, at most 2 decimals',
});
const CryptoAmount = Type.String({
  pattern: '^(0|[1-9]\\d{0,19})(\\.\\d{1,18})?$',
  description: 'Decimal string, at most 18 decimals',
});
const Asset = Type.String({ pattern: '^[A-Z]{2,10}$' });
const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), {
  maxProperties: 20,
  description: 'At most 20 keys, string values of at most 500 characters',
});

export { ErrorSchema } from '../../shared/error-schema';
export const FiatValue = Type.Object(
  { amount: FiatAmount, currency: Currency },
  { additionalProperties: false },
);

export const PartySchema = Type.Object(
  {
    type: Type.Enum(['natural', 'legal'] as const),
    first_name: Type.Optional(str(200)),
    last_name: Type.Optional(str(200)),
    legal_name: Type.Optional(str(300)),
    account_number: Type.Optional(str(128, 0)),
    address: Type.Optional(
      Type.Object(
        { street: str(300), city: str(200), postal_code: str(32), country: Country },
        { additionalProperties: false },
      ),
    ),
    date_of_birth: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    place_of_birth: Type.Optional(str(200)),
    national_identifier: Type.Optional(
      Type.Object({ type: str(50), value: str(100), country: Country }, { additionalProperties: false }),
    ),
    customer_id: Type.Optional(str(100)),
  },
  { additionalProperties: false, description: 'IVMS101 party; account_number is the wallet address' },
);

const OriginatorVasp = Type.Object(
  {
    name: str(200),
    lei: Type.Optional(nullable(Type.String({ pattern: '^[A-Z0-9]{20}$' }))),
    country: Country,
  },
  { additionalProperties: false },
);

export const SettingsBody = Type.Object(
  {
    threshold: Type.Optional(FiatValue),
    originator_vasp: Type.Optional(nullable(OriginatorVasp)),
    screen_counterparty_wallet: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const SettingsSchema = Type.Object({
  threshold: Type.Object({ amount: Type.String(), currency: Type.String() }),
  originator_vasp: nullable(
    Type.Object({ name: Type.String(), lei: nullable(Type.String()), country: Type.String() }),
  ),
  screen_counterparty_wallet: Type.Boolean(),
  updated_at: nullable(dateTime),
});

export const CreateTransferBody = Type.Object(
  {
    asset: Asset,
    chain: Type.Enum(CHAINS),
    amount: CryptoAmount,
    fiat_value: FiatValue,
    originator: PartySchema,
    beneficiary: PartySchema,
    counterparty_wallet: Type.Object(
      {
        address: str(128),
        travel_address: Type.Optional(
          Type.String({
            minLength: 3,
            maxLength: 1024,
            description:
              "The beneficiary's TRP travel address (`ta…`, TRP 3.1 and later), as its VASP gave it: the inquiry goes to the URL it decodes to, sent only to the directory VASP on that URL's origin (otherwise 400). TRP network only.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    beneficiary_vasp_id: Type.Optional(uuid),
    user_id: Type.Optional(uuid),
    business_customer_id: Type.Optional(uuid),
    client_reference: str(100),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const PatchTransferBody = Type.Object(
  { originator: Type.Optional(PartySchema), beneficiary: Type.Optional(PartySchema) },
  { additionalProperties: false },
);
export const TxHashBody = Type.Object(
  {
    tx_hash: Type.String({
      pattern: '^(0x)?[A-Za-z0-9]{16,128}$',
      description: 'The on-chain transaction hash',
    }),
  },
  { additionalProperties: false },
);
export const ProceedBody = Type.Object({ justification: str(1000, 10) }, { additionalProperties: false });
export const RejectBody = Type.Object({ reason: str(500) }, { additionalProperties: false });
export const SimulateBody = Type.Object(
  {
    action: Type.Enum(['accept', 'reject', 'request_repair', 'expire'] as const),
    repair_fields: Type.Optional(Type.Array(str(100), { minItems: 1, maxItems: 20 })),
  },
  { additionalProperties: false },
);
export const InboundBody = Type.Object(
  {
    asset: Asset,
    chain: Type.Enum(CHAINS),
    amount: CryptoAmount,
    fiat_value: FiatValue,
    originator: PartySchema,
    beneficiary: PartySchema,
    beneficiary_address: str(128),
  },
  { additionalProperties: false },
);

export const TransferIdParams = Type.Object({ transfer_id: uuid });

export const TransferSchema = Type.Object({
  transfer_id: uuid,
  direction: Type.Enum(['outbound', 'inbound'] as const),
  status: Type.Enum(TRANSFER_STATUSES),
  status_reason: nullable(Type.String()),
  asset: Type.String(),
  chain: Type.String(),
  amount: Type.String(),
  fiat_value: nullable(
    Type.Object(
      { amount: Type.String(), currency: Type.String() },
      {
        description: 'Null on an inbound transfer whose network carries no fiat value (TRP).',
      },
    ),
  ),
  threshold_applies: Type.Boolean(),
  originator: Type.Record(Type.String(), Type.Unknown()),
  beneficiary: Type.Record(Type.String(), Type.Unknown()),
  originator_vasp: nullable(Type.Record(Type.String(), Type.Unknown())),
  beneficiary_vasp: nullable(
    Type.Object({ vasp_id: Type.String(), name: Type.String(), country: Type.String() }),
  ),
  counterparty_wallet: Type.Object({
    address: Type.String(),
    travel_address: nullable(
      Type.String({ description: 'The travel address the transfer was created with, or null' }),
    ),
    hosted: nullable(Type.Boolean()),
    wallet_id: nullable(uuid),
    screening_id: nullable(uuid),
    risk_level: nullable(Type.String()),
  }),
  ownership_request_id: nullable(uuid),
  repair_fields: nullable(Type.Array(Type.String())),
  tx_hash: nullable(Type.String()),
  name_match: nullable(Type.Enum(['exact', 'partial', 'none'] as const)),
  sanctions_matches: sanctionsNameMatches(
    "The originator's and beneficiary's names screened against the sanctions lists when the transfer was created or received: the hits (empty: none); null when not screened. Reported, never decided on.",
  ),
  sanctions_screening: sanctionsScreeningSchema(
    'Whether the parties were screened against the sanctions lists: screened, not_configured (the deployment has no lists), unavailable (an inbound transfer received while the lists could not answer: kept unscreened; screen the parties yourself)',
  ),

  justification: nullable(Type.String()),
  client_reference: nullable(Type.String()),
  user_id: nullable(uuid),
  business_customer_id: nullable(uuid),
  metadata: nullable(Type.Record(Type.String(), Type.String())),
  expires_at: nullable(dateTime),
  created_at: dateTime,
  accepted_at: nullable(dateTime),
  completed_at: nullable(dateTime),
  allowed_actions: TransferActionsSchema,
});

export const ListTransfersQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  q: Type.Optional(searchQuerySchema('client_reference, party names, the wallet address and tx_hash')),
  status: Type.Optional(Type.Enum(TRANSFER_STATUSES)),
  direction: Type.Optional(Type.Enum(['outbound', 'inbound'] as const)),
  asset: Type.Optional(Asset),
  chain: Type.Optional(Type.Enum(CHAINS)),
  ...dateRangeQuerySchema,
});
export const TransferListSchema = Type.Object({
  transfers: Type.Array(TransferSchema),
  records: Type.Integer({ description: 'Items on this page' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total: Type.Integer({ description: 'Items matching the filters' }),
  total_pages: Type.Integer(),
});

export const VaspSchema = Type.Object({
  vasp_id: Type.String(),
  name: Type.String(),
  country: Type.String(),
  lei: nullable(Type.String()),
  reachable: Type.Boolean(),
});
export const ListVaspsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  q: Type.Optional(searchQuerySchema('name and LEI')),
});
export const VaspListSchema = pageEnvelope('vasps', VaspSchema);
export const NotificationAckSchema = Type.Object({ received: Type.Boolean(), applied: Type.Boolean() });
