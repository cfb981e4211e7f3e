/** Contract test helpers: a real two-page PDF, templates, sending, and the sandbox simulate call. */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';

export async function makePdf(pages = 2, text = 'Service agreement'): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const p = doc.addPage([595.28, 841.89]);
    p.drawText(`${text} - page ${i + 1}`, { x: 50, y: 780, size: 16, font });
  }
  return Buffer.from(await doc.save()).toString('base64');
}

export function call(ctx: TestContext, caller: TestCaller | { headers: Record<string, string> }) {
  return (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: { ...caller.headers, ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

export const TWO_SIGNERS = {
  roles: [
    { role: 'client', kind: 'signer', signing_order: 1 },
    { role: 'company', kind: 'signer', signing_order: 2 },
  ],
  fields: [
    {
      field_id: 'client_sig',
      role: 'client',
      type: 'signature',
      page: 2,
      x: 0.1,
      y: 0.8,
      width: 0.35,
      height: 0.06,
    },
    {
      field_id: 'client_note',
      role: 'client',
      type: 'text',
      page: 1,
      x: 0.1,
      y: 0.3,
      width: 0.5,
      height: 0.04,
      required: false,
      label: 'Note',
      value_key: 'note',
    },
    {
      field_id: 'company_sig',
      role: 'company',
      type: 'signature',
      page: 2,
      x: 0.55,
      y: 0.8,
      width: 0.35,
      height: 0.06,
    },
  ],
};

export async function createTemplate(
  ctx: TestContext,
  caller: TestCaller,
  extra: Record<string, unknown> = {},
) {
  const res = await call(ctx, caller)('POST', '/contracts/templates', {
    name: 'Service agreement',
    description: 'Standard terms',
    document: { file_name: 'agreement.pdf', content_base64: await makePdf() },
    ...TWO_SIGNERS,
    ...extra,
  });
  if (res.statusCode !== 201) throw new Error(`template ${res.statusCode}: ${res.body}`);
  return res.json() as { template_id: string; version: number };
}

export interface Req {
  contract_request_id: string;
  status: string;
  status_reason: string | null;
  participants: {
    participant_id: string;
    role: string;
    status: string;
    signing_url: string | null;
    email: string;
  }[];
  documents: { document_id: string; kind: string; sha256: string }[];
  payment: { transaction_id: string | null; checkout_url: string | null; error: string | null } | null;
  certificate_sha256: string | null;
}

export async function send(
  ctx: TestContext,
  caller: TestCaller,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const res = await call(ctx, caller)('POST', '/contracts/send', body, headers);
  if (res.statusCode !== 201 && res.statusCode !== 200)
    throw new Error(`send ${res.statusCode}: ${res.body}`);
  return res.json() as Req;
}

export function participants(tag = '') {
  return [
    { role: 'client', name: 'Cleo Client', email: `cleo${tag}@example.com` },
    { role: 'company', name: 'Cory Company', email: `cory${tag}@example.com` },
  ];
}

export async function simulate(
  ctx: TestContext,
  caller: TestCaller,
  id: string,
  action: string,
  participantId?: string,
  reason?: string,
) {
  return call(ctx, caller)('POST', `/sandbox/contracts/requests/${id}/simulate`, {
    action,
    ...(participantId ? { participant_id: participantId } : {}),
    ...(reason ? { reason } : {}),
  });
}

export async function getReq(ctx: TestContext, caller: TestCaller, id: string): Promise<Req> {
  const res = await call(ctx, caller)('GET', `/contracts/requests/${id}`);
  if (res.statusCode !== 200) throw new Error(`get ${res.statusCode}: ${res.body}`);
  return res.json() as Req;
}

export const byRole = (r: Req, role: string) => r.participants.find((p) => p.role === role)!;
