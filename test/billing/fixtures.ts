/** Billing test helpers: staff calls, price lists, drafts, and reading a PDF's text back. */
import { randomBytes } from 'node:crypto';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { verificationRecords, verificationSessions } from '../../src/db/schema/index';
import type { TestContext } from '../helpers/app';

export const PRICES = {
  platform_fee_monthly: '49.00',
  transaction_success: '0.35',
  kyc_verification: '1.255',
  kyb_verification: '4.00',
  wallet_screening: '0.10',
  travel_rule_transfer: '0.50',
  contract_request: '2.00',
};

export function api(ctx: TestContext) {
  return (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
    ctx.app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

export async function putPrices(
  ctx: TestContext,
  staff: Record<string, string>,
  clientId: string,
  currency = 'EUR',
) {
  const res = await api(ctx)('PUT', `/admin/clients/${clientId}/billing-prices`, staff, {
    currency,
    prices: PRICES,
  });
  if (res.statusCode !== 200) throw new Error(`prices failed ${res.statusCode}: ${res.body}`);
  return res.json();
}

export const LINES = [
  {
    description: 'Platform fee',
    category: 'platform_fee',
    quantity: 1,
    unit_amount: '49.99',
    tax_rate: '20',
  },
  // 3 × 0.335 = 1.005 -> 1.01 (half-up); tax 7.7 % of 1.01 = 0.07777 -> 0.08
  {
    description: 'Payments',
    category: 'transaction_fee',
    quantity: 3,
    unit_amount: '0.335',
    tax_rate: '7.7',
  },
  // no tax_rate: takes the invoice default (19 %): 10.00 × 19 % = 1.90
  { description: 'Consulting', category: 'other', quantity: 2, unit_amount: '5' },
];

export async function createDraft(
  ctx: TestContext,
  staff: Record<string, string>,
  clientId: string,
  extra: Record<string, unknown> = {},
) {
  const res = await api(ctx)('POST', '/admin/billing/invoices', staff, {
    client_id: clientId,
    currency: 'EUR',
    period_start: '2026-01-01',
    period_end: '2026-01-31',
    lines: LINES,
    tax_rate: '19',
    ...extra,
  });
  if (res.statusCode !== 201) throw new Error(`draft failed ${res.statusCode}: ${res.body}`);
  return res.json() as { invoice_id: string; [k: string]: unknown };
}

export async function finalize(ctx: TestContext, staff: Record<string, string>, id: string) {
  const res = await api(ctx)('POST', `/admin/billing/invoices/${id}/finalize`, staff);
  if (res.statusCode !== 200) throw new Error(`finalize failed ${res.statusCode}: ${res.body}`);
  return res.json() as { invoice_id: string; number: string; status: string; [k: string]: unknown };
}

/** The text of every page, extracted by PDF.js (an independent reader: pdf-lib only writes). */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const doc = await getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    pages.push(content.items.map((it) => ('str' in it ? it.str : '')).join(' '));
  }
  await doc.destroy();
  return pages.join('\n');
}

/** A decided KYC or KYB verification of the client, decided at `at`. */
export async function insertDecidedVerification(
  ctx: TestContext,
  clientId: string,
  kind: 'kyc' | 'kyb',
  at: Date,
) {
  const [s] = await ctx.db
    .insert(verificationSessions)
    .values({
      clientId,
      kind,
      level: 'standard',
      checks: [],
      token: randomBytes(24).toString('base64url'),
      status: 'submitted',
      expiresAt: at,
    })
    .returning({ id: verificationSessions.id });
  await ctx.db.insert(verificationRecords).values({
    clientId,
    sessionId: s!.id,
    kind,
    status: 'approved',
    fetchedAt: at,
    decisionAt: at,
    providerUpdatedAt: at,
    providerRevision: 1,
  });
}
