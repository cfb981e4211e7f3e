import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema, prefixSearchQuerySchema } from '../../shared/pagination';
import { OpcoActionsSchema } from './opcos.actions';
import { OPCO_STATUSES } from './opcos.machine';

export const OPCO_TYPES = ['licensed_tpp_sole_trader', 'licensed_tpp_non_sole_trader_private'] as const;
export type OpcoType = (typeof OPCO_TYPES)[number];

export const PRIMARY_USE_CASES = [
  'AIS: Accounting package integration',
  'AIS: Cash flow management',
  'AIS: Credit risk analysis',
  'AIS: Customer onboarding / verification',
  'AIS: Personal finance management',
  'PIS: eCommerce merchant payment',
  'PIS: Funding an account',
  'PIS: In store merchant payment',
  'PIS: Paying a bill',
  'PIS: Paying off debt',
] as const;
export const DEFAULT_PRIMARY_USE_CASE = 'PIS: Funding an account';

const str = (description: string, max = 255) => Type.String({ minLength: 1, maxLength: max, description });
const date = (description: string) => Type.String({ format: 'date', description });

export const SoleTraderSchema = Type.Object(
  {
    fullName: str('Full legal name of the sole trader'),
    address: str('Residential or business address', 1000),
    dateOfBirth: date('Date of birth (YYYY-MM-DD)'),
  },
  { additionalProperties: false },
);

export const PersonSchema = Type.Object(
  {
    fullName: str('Full legal name'),
    dateOfBirth: Type.Optional(date('Date of birth (YYYY-MM-DD)')),
    address: Type.Optional(str('Address', 1000)),
    nationality: Type.Optional(Type.String({ minLength: 2, maxLength: 3, description: 'ISO country code' })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    ownershipPercentage: Type.Optional(
      Type.Number({ minimum: 0, maximum: 100, description: 'Share of ownership (UBOs)' }),
    ),
    role: Type.Optional(str('Position or title', 100)),
  },
  { additionalProperties: false },
);

const people = (description: string) =>
  Type.Union([Type.Array(PersonSchema, { maxItems: 50 }), Type.Null()], { description });

const fields = {
  opco_type: Type.Union([Type.Enum(OPCO_TYPES), Type.Null()], {
    description: 'Legal form; decides whether `sole_trader` or `ubos`/`directors`/`signatories` are required',
  }),
  name: str('Name of the opco'),
  domain: str('Web domain of the opco', 253),
  country_code: Type.String({
    minLength: 2,
    maxLength: 5,
    description: 'Country code where the merchant operates (2 to 5 characters)',
    examples: ['GB'],
  }),
  legal_entity_name: Type.Union([str('Full legal entity name'), Type.Null()]),
  registration_number: str('Company registration number', 100),
  primary_use_case: Type.Enum(PRIMARY_USE_CASES, {
    description: `Primary use case (default \`${DEFAULT_PRIMARY_USE_CASE}\`)`,
  }),
  settlement_iban: Type.String({
    minLength: 5,
    maxLength: 42,
    description: 'IBAN of the settlement bank account (checksum validated; spaces allowed)',
    examples: ['GB33BUKB20201555555555'],
  }),
  settlement_bic: Type.Union([
    Type.String({ minLength: 8, maxLength: 11, description: 'BIC of the settlement bank (validated)' }),
    Type.Null(),
  ]),
  mcc: Type.String({
    pattern: '^[0-9]{4}$',
    description: 'Merchant category code from GET /opcos/mcc-codes',
    examples: ['5812'],
  }),
  mcc_subtype: Type.Union([str('Merchant category code sub-type', 100), Type.Null()]),
  logo: Type.Union([
    Type.String({
      minLength: 1,
      maxLength: 700_000,
      description:
        'Base64 image (PNG, JPEG, GIF or WebP; a `data:image/...;base64,` prefix is accepted), 512 KiB max',
    }),
    Type.Null(),
  ]),
  parent_sub_tpp_id: Type.Union([str('Sub-TPP id of the parent in a hierarchy', 100), Type.Null()]),
  sole_trader: Type.Union([SoleTraderSchema, Type.Null()], {
    description: 'Required for `licensed_tpp_sole_trader`',
  }),
  ubos: people('Ultimate beneficial owners; required for `licensed_tpp_non_sole_trader_private`'),
  directors: people('Directors; required for `licensed_tpp_non_sole_trader_private`'),
  signatories: people('Signatories; required for `licensed_tpp_non_sole_trader_private`'),
};

export const CreateOpcoBody = Type.Object(
  {
    opco_type: fields.opco_type,
    name: fields.name,
    domain: fields.domain,
    country_code: fields.country_code,
    legal_entity_name: Type.Optional(fields.legal_entity_name),
    registration_number: fields.registration_number,
    primary_use_case: Type.Optional(fields.primary_use_case),
    settlement_iban: fields.settlement_iban,
    settlement_bic: Type.Optional(fields.settlement_bic),
    mcc: fields.mcc,
    mcc_subtype: Type.Optional(fields.mcc_subtype),
    logo: Type.Optional(fields.logo),
    parent_sub_tpp_id: Type.Optional(fields.parent_sub_tpp_id),
    sole_trader: Type.Optional(fields.sole_trader),
    ubos: Type.Optional(fields.ubos),
    directors: Type.Optional(fields.directors),
    signatories: Type.Optional(fields.signatories),
  },
  { additionalProperties: false },
);
export type CreateOpcoInput = Type.Static<typeof CreateOpcoBody>;

export const UpdateOpcoBody = Type.Object(
  {
    opco_type: Type.Optional(fields.opco_type),
    name: Type.Optional(fields.name),
    domain: Type.Optional(fields.domain),
    country_code: Type.Optional(fields.country_code),
    legal_entity_name: Type.Optional(fields.legal_entity_name),
    registration_number: Type.Optional(fields.registration_number),
    primary_use_case: Type.Optional(fields.primary_use_case),
    settlement_iban: Type.Optional(fields.settlement_iban),
    settlement_bic: Type.Optional(fields.settlement_bic),
    mcc: Type.Optional(fields.mcc),
    mcc_subtype: Type.Optional(fields.mcc_subtype),
    logo: Type.Optional(fields.logo),
    parent_sub_tpp_id: Type.Optional(fields.parent_sub_tpp_id),
    sole_trader: Type.Optional(fields.sole_trader),
    ubos: Type.Optional(fields.ubos),
    directors: Type.Optional(fields.directors),
    signatories: Type.Optional(fields.signatories),
  },
  { additionalProperties: false },
);
export type UpdateOpcoInput = Type.Static<typeof UpdateOpcoBody>;

const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const OpcoSchema = Type.Object({
  opco_id: Type.String({ format: 'uuid' }),
  status: Type.Enum(OPCO_STATUSES),
  status_reason: nullableString,
  sub_tpp_id: Type.Union([Type.String(), Type.Null()], {
    description: 'Payment network id; null until activation',
  }),
  opco_type: Type.Enum(OPCO_TYPES),
  name: Type.String(),
  domain: Type.String(),
  country_code: Type.String(),
  legal_entity_name: nullableString,
  registration_number: Type.String(),
  primary_use_case: Type.String(),
  settlement_iban: Type.String(),
  settlement_bic: nullableString,
  mcc: Type.String(),
  mcc_subtype: nullableString,
  logo: nullableString,
  parent_sub_tpp_id: nullableString,
  sole_trader: Type.Union([SoleTraderSchema, Type.Null()]),
  ubos: Type.Union([Type.Array(PersonSchema), Type.Null()]),
  directors: Type.Union([Type.Array(PersonSchema), Type.Null()]),
  signatories: Type.Union([Type.Array(PersonSchema), Type.Null()]),
  submitted_at: nullableTime,
  activated_at: nullableTime,
  activation_due_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      "When the sandbox's approval simulator activates this submitted opco " +
      '(SVC_SANDBOX_OPCO_ACTIVATION_SECONDS after submit); null unless awaiting activation',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  allowed_actions: OpcoActionsSchema,
});

export const OpcoIdParams = Type.Object({ opco_id: Type.String({ format: 'uuid' }) });

export const ListOpcosQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(Type.Enum(OPCO_STATUSES, { description: 'Filter by status' })),
  q: Type.Optional(prefixSearchQuerySchema('the opco name')),
});

export const OpcoListSchema = pageEnvelope('opcos', OpcoSchema);

export const MccCodesSchema = Type.Object({
  mcc_codes: Type.Array(
    Type.Object({
      id: Type.String({ pattern: '^[0-9]{4}$' }),
      description: Type.String(),
    }),
  ),
});
