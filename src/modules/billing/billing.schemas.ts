/** Request and response schemas of billing: invoices, usage, details, price lists, sandbox. */
import { Type } from 'typebox';
import { fileResponse, MEDIA } from '../../shared/download';
import { dateRangeQuerySchema, pageEnvelope, pageQuerySchema } from '../../shared/pagination';
import { InvoiceActionsSchema } from './billing.actions';
import { INVOICE_STATUSES } from './billing.machine';

export const LINE_CATEGORIES = [
  'platform_fee',
  'transaction_fee',
  'kyc_verification',
  'kyb_verification',
  'wallet_screening',
  'travel_rule_transfer',
  'contract_request',
  'other',
] as const;
export type LineCategory = (typeof LINE_CATEGORIES)[number];

export const PRICE_KEYS = [
  'platform_fee_monthly',
  'transaction_success',
  'kyc_verification',
  'kyb_verification',
  'wallet_screening',
  'travel_rule_transfer',
  'contract_request',
] as const;
export type PriceKey = (typeof PRICE_KEYS)[number];

const uuid = Type.String({ format: 'uuid' });
const dateTime = Type.String({ format: 'date-time' });
const date = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
const nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const money = Type.String({ description: 'Decimal string (2 decimals)' });

export { ErrorSchema } from '../../shared/error-schema';

/** A unit price: up to 6 decimals (amounts are rounded half-up to 2 per line). */
export const UnitAmount = Type.String({
  pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?$',
  description: 'Non-negative decimal string, at most 6 decimals',
  examples: ['0.25'],
});
/** A tax rate in percent, 0-100 with at most 4 decimals. */
export const TaxRate = Type.String({
  pattern: '^(0|[1-9][0-9]{0,2})(\\.[0-9]{1,4})?$',
  description: 'Percent, e.g. "20" or "7.7" (0-100)',
});
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' });

const Status = Type.Enum(INVOICE_STATUSES);
const ClientStatus = Type.Enum(['open', 'overdue', 'paid', 'uncollectible', 'void'] as const);

export const InvoiceLineSchema = Type.Object({
  line_id: uuid,
  description: Type.String(),
  category: Type.Enum(LINE_CATEGORIES),
  quantity: Type.Integer(),
  unit_amount: Type.String(),
  amount: money,
  tax_rate: Type.String({ description: 'Percent' }),
  tax_amount: money,
});

const Address = Type.Object(
  {
    line1: Type.String({ minLength: 1, maxLength: 200 }),
    line2: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    postal_code: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
    region: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
  },
  { additionalProperties: false },
);

const BillingDetailsSnapshot = Type.Object({
  company_name: Type.Union([Type.String(), Type.Null()]),
  address: Type.Union([Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])), Type.Null()]),
  vat_number: Type.Union([Type.String(), Type.Null()]),
  billing_email: Type.Union([Type.String(), Type.Null()]),
});

const invoiceFields = {
  invoice_id: uuid,
  number: Type.Union([
    Type.String({ description: '{PREFIX}-{YYYY}-{000001}; null while a draft' }),
    Type.Null(),
  ]),
  status: Status,
  currency: Type.String(),
  period_start: date,
  period_end: date,
  issue_date: nullable(date),
  due_date: nullable(date),
  subtotal: money,
  tax_total: money,
  total: money,
  amount_paid: money,
  amount_due: money,
  purchase_order_number: Type.Union([Type.String(), Type.Null()]),
  billing_details: Type.Union([BillingDetailsSnapshot, Type.Null()], {
    description: 'Copied from the billing details at finalization',
  }),
  payment_instructions: Type.Union([
    Type.Object({
      payee_name: Type.Union([Type.String(), Type.Null()]),
      iban: Type.Union([Type.String(), Type.Null()]),
      bic: Type.Union([Type.String(), Type.Null()]),
      reference: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
  payment_url: Type.Union([Type.String(), Type.Null()], {
    description:
      'Pay-by-bank link when the platform collects invoices online; otherwise null (bank transfer)',
  }),
  transaction_id: Type.Union([uuid, Type.Null()]),
  replaces_invoice_id: Type.Union([uuid, Type.Null()]),
  paid_at: nullable(dateTime),
  voided_at: nullable(dateTime),
  void_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: dateTime,
  lines: Type.Array(InvoiceLineSchema),
};

export const InvoiceSchema = Type.Object({ ...invoiceFields, allowed_actions: InvoiceActionsSchema });

export const AdminInvoiceSchema = Type.Object({
  ...invoiceFields,
  client_id: uuid,
  due_in_days: Type.Integer(),
  payment_reference: Type.Union([Type.String(), Type.Null()]),
  payment_link: Type.Object({
    state: Type.Enum(['none', 'pending', 'created', 'failed'] as const),
    attempts: Type.Integer(),
    last_error: Type.Union([Type.String(), Type.Null()]),
  }),
  email: Type.Object({
    state: Type.Enum(['none', 'waiting', 'pending', 'sent', 'failed'] as const),
    recipient: Type.Union([Type.String(), Type.Null()]),
    attempts: Type.Integer(),
    last_error: Type.Union([Type.String(), Type.Null()]),
    sent_at: nullable(dateTime),
  }),
  pdf_sha256: Type.Union([Type.String(), Type.Null()]),
});

export const InvoiceListSchema = pageEnvelope('invoices', InvoiceSchema);
export const AdminInvoiceListSchema = pageEnvelope('invoices', AdminInvoiceSchema);

export const InvoiceIdParams = Type.Object({ invoice_id: uuid });
export const ClientIdParams = Type.Object({ client_id: uuid });

export const ListInvoicesQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  status: Type.Optional(ClientStatus),
  ...dateRangeQuerySchema,
});

export const AdminListInvoicesQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  client_id: Type.Optional(uuid),
  status: Type.Optional(Status),
});

export const UsageSchema = Type.Object({
  period_start: date,
  period_end: date,
  currency: Type.String(),
  lines: Type.Array(
    Type.Object({
      description: Type.String(),
      category: Type.Enum(LINE_CATEGORIES),
      quantity: Type.Integer(),
      unit_amount: Type.String(),
      amount: money,
    }),
  ),
  subtotal: money,
});

export const BillingDetailsBody = Type.Object(
  {
    company_name: Type.String({ minLength: 1, maxLength: 200 }),
    address: Type.Optional(Type.Union([Address, Type.Null()])),
    vat_number: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()])),
    billing_email: Type.String({ format: 'email', maxLength: 254 }),
    purchase_order_number: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]),
    ),
  },
  { additionalProperties: false },
);

export const BillingDetailsSchema = Type.Object({
  company_name: Type.String(),
  address: Type.Union([Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])), Type.Null()]),
  vat_number: Type.Union([Type.String(), Type.Null()]),
  billing_email: Type.String(),
  purchase_order_number: Type.Union([Type.String(), Type.Null()]),
  updated_at: nullable(dateTime),
});

export const PriceListBody = Type.Object(
  {
    currency: Currency,
    prices: Type.Object(
      Object.fromEntries(PRICE_KEYS.map((k) => [k, UnitAmount])) as Record<PriceKey, typeof UnitAmount>,
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const PriceListSchema = Type.Object({
  client_id: uuid,
  currency: Type.String(),
  prices: Type.Object(
    Object.fromEntries(PRICE_KEYS.map((k) => [k, Type.String()])) as Record<
      PriceKey,
      ReturnType<typeof Type.String>
    >,
  ),
  source: Type.Enum(['custom', 'sandbox_default'] as const, {
    description:
      '`custom`: set by staff. `sandbox_default`: none set, so a sandbox deployment bills from its default list',
  }),
  updated_at: nullable(dateTime),
});

export const LineInput = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 500 }),
    category: Type.Enum(LINE_CATEGORIES),
    quantity: Type.Integer({ minimum: 1, maximum: 100_000_000 }),
    unit_amount: UnitAmount,
    tax_rate: Type.Optional(TaxRate),
  },
  { additionalProperties: false },
);
export type LineInputT = Type.Static<typeof LineInput>;

const Lines = Type.Array(LineInput, { minItems: 1, maxItems: 200 });
const DueInDays = Type.Integer({
  minimum: 0,
  maximum: 365,
  description: 'Days from finalization to the due date (default SVC_BILLING_DEFAULT_DUE_DAYS)',
});
const Po = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]);

export const CreateInvoiceBody = Type.Object(
  {
    client_id: uuid,
    currency: Currency,
    period_start: date,
    period_end: date,
    due_in_days: Type.Optional(DueInDays),
    lines: Type.Optional(Lines),
    from_usage: Type.Optional(
      Type.Boolean({ description: 'Lines from the usage in the period × the price list' }),
    ),
    purchase_order_number: Type.Optional(Po),
    tax_rate: Type.Optional(TaxRate),
  },
  { additionalProperties: false },
);
export type CreateInvoiceInput = Type.Static<typeof CreateInvoiceBody>;

export const PatchInvoiceBody = Type.Object(
  {
    currency: Type.Optional(Currency),
    period_start: Type.Optional(date),
    period_end: Type.Optional(date),
    due_in_days: Type.Optional(DueInDays),
    lines: Type.Optional(Lines),
    purchase_order_number: Type.Optional(Po),
    tax_rate: Type.Optional(TaxRate),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchInvoiceInput = Type.Static<typeof PatchInvoiceBody>;

export const MarkPaidBody = Type.Object(
  {
    paid_at: Type.Optional(dateTime),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const VoidBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500 }) },
  { additionalProperties: false },
);

export const SampleInvoiceBody = Type.Object(
  { lines: Type.Optional(Lines) },
  { additionalProperties: false },
);

export const SimulateInvoiceBody = Type.Object(
  { action: Type.Enum(['pay', 'overdue'] as const) },
  { additionalProperties: false },
);

export const PdfSchema = fileResponse('The PDF rendered at finalization', MEDIA.pdf);
