/** The hosted remediation page (public: the token in the URL is the capability). 404 unknown, 410 expired or used. */

import multipart from '@fastify/multipart';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { currencyScale } from '../../platform/decimal';
import { AppError, ValidationError } from '../../shared/errors';
import { sendHtmlPage } from '../../shared/html-page';
import { verificationLinkState } from '../kyc/verification.service';
import { ownershipLinkState } from '../screening/ownership.service';
import { checkAttachments } from '../tickets/tickets-attachments.service';
import type { MonitoredTransactionRow } from './monitoring.repo';
import { amountView } from './monitoring.view';
import { issueVerificationLink, type RemediationDocument } from './remediation.service';
import {
  type RemediationView,
  remediationDonePage,
  remediationErrorPage,
  remediationPage,
  SOURCES,
} from './remediation-page.view';
import { openRemediation, submitRemediation } from './reviews.transitions';

const TokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 100 }) });
const notFoundPage = () =>
  remediationErrorPage(
    'Link not found',
    'This link is not valid. Check the link or ask the merchant for a new one.',
  );

function sendError(reply: FastifyReply, err: unknown) {
  if (err instanceof AppError && err.statusCode === 404) return sendHtmlPage(reply, 404, notFoundPage());
  if (err instanceof AppError && err.statusCode === 410)
    return sendHtmlPage(reply, 410, remediationErrorPage('This link can no longer be used', err.detail));
  if (err instanceof AppError)
    return sendHtmlPage(reply, err.statusCode, remediationErrorPage('Something went wrong', err.detail));
  throw err;
}

async function viewOf(deps: Deps, row: MonitoredTransactionRow, token: string): Promise<RemediationView> {
  const res = await deps.db.execute(sql`select company_name from clients where id = ${row.clientId}::uuid`);
  const merchant = rowsOf<{ company_name: string }>(res)[0]?.company_name ?? 'Merchant';
  const cp = row.counterparty as { name: string; wallet?: { chain: string; address: string } };
  const type = row.remediationType ?? 'source_of_funds';
  let verification: RemediationView['verification'] = null;
  let ownership: RemediationView['ownership'] = null;
  if (type === 'identity_reverification') {
    // The link is issued after the decision commits; when that failed, opening the page asks again.
    const withLink = await issueVerificationLink(deps, row);
    const state = withLink.remediationVerificationId
      ? await verificationLinkState(deps, withLink.remediationVerificationId)
      : null;
    verification = { url: state?.verification_url ?? null, recordStatus: state?.record_status ?? null };
  }
  if (type === 'wallet_ownership' && row.remediationOwnershipRequestId) {
    const own = await ownershipLinkState(deps, row.clientId, row.remediationOwnershipRequestId);
    if (own) ownership = { proofUrl: own.proof_url, status: own.status };
  }
  return {
    token,
    merchantName: merchant,
    type,
    amount: amountView(row.amount, currencyScale(row.currency)),
    currency: row.currency,
    counterpartyName: cp.name,
    expiresAt: row.remediationExpiresAt ?? new Date(),
    wallet: cp.wallet ?? null,
    verification,
    ownership,
    maxDocumentBytes: deps.config.remediationMaxDocumentBytes,
  };
}

type Form = Record<string, string | undefined>;
type Upload = { fileName: string; content: Buffer } | null;

/** The answers of the page's form, or the message to show. */
async function answersOf(
  deps: Deps,
  row: MonitoredTransactionRow,
  form: Form,
): Promise<Record<string, unknown> | string> {
  const type = row.remediationType ?? 'source_of_funds';
  if (type === 'source_of_funds') {
    const source = form.source ?? '';
    const explanation = (form.explanation ?? '').trim();
    if (!(SOURCES as readonly string[]).includes(source)) return 'Choose where the funds come from.';
    if (explanation.length < 1 || explanation.length > 2000)
      return 'Explain the origin of the funds (up to 2000 characters).';
    return { source, explanation };
  }
  if (type === 'wallet_ownership') return 'Prove control of the wallet on the wallet proof page.';
  if (form.confirm !== 'on') return 'Tick the confirmation to continue.';
  const state = row.remediationVerificationId
    ? await verificationLinkState(deps, row.remediationVerificationId)
    : null;
  return {
    confirmed: 'true',
    verification_id: state?.verification_id ?? null,
    verification_status: state?.record_status ?? 'pending',
  };
}

/** The checked document (type decided by its bytes, as for ticket attachments), or the message to show. */
async function documentOf(deps: Deps, upload: Upload): Promise<RemediationDocument | null | string> {
  if (!upload) return null;
  try {
    const [doc] = await checkAttachments(
      [{ file_name: upload.fileName, content_base64: upload.content.toString('base64') }],
      deps.config.remediationMaxDocumentBytes,
      ['body', 'document'],
    );
    return doc ?? null;
  } catch (err) {
    if (err instanceof ValidationError) return err.issues.map((i) => i.msg).join(' ');
    throw err;
  }
}

/** The posted form: multipart (the page, with its optional document) or url-encoded. */
async function readForm(request: FastifyRequest): Promise<{ form: Form; upload: Upload } | 'too_large'> {
  if (!request.isMultipart()) return { form: (request.body ?? {}) as Form, upload: null };
  const form: Form = {};
  let upload: Upload = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const content = await part.toBuffer();
        if (part.fieldname === 'document' && part.filename && content.length > 0)
          upload = { fileName: part.filename, content };
      } else if (typeof part.value === 'string') form[part.fieldname] = part.value;
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return 'too_large';
    throw err;
  }
  return { form, upload };
}

export async function remediationPageRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  // Only this page takes multipart (its optional document); the parser stays inside this plugin.
  await app.register(multipart, {
    limits: { files: 1, fileSize: deps.config.remediationMaxDocumentBytes, fields: 10, fieldSize: 4000 },
  });

  app.get(
    '/remediate/:token',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      try {
        if (request.validationError) return sendHtmlPage(reply, 404, notFoundPage());
        const token = (request.params as { token: string }).token;
        const row = await openRemediation(deps, deps.db, token);
        return sendHtmlPage(reply, 200, remediationPage(await viewOf(deps, row, token)));
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.post(
    '/remediate/:token',
    {
      config: { auth: 'public' },
      schema: {
        hide: true,
        params: TokenParams,
        body: Type.Object(
          {
            source: Type.Optional(Type.String({ maxLength: 50 })),
            explanation: Type.Optional(Type.String({ maxLength: 4000 })),
            confirm: Type.Optional(Type.String({ maxLength: 10 })),
          },
          { additionalProperties: true },
        ),
      },
      attachValidation: true,
    },
    async (request, reply) => {
      try {
        if (request.validationError?.validationContext === 'params')
          return sendHtmlPage(reply, 404, notFoundPage());
        const token = (request.params as { token: string }).token;
        const row = await openRemediation(deps, deps.db, token);
        const posted = await readForm(request);
        const view = await viewOf(deps, row, token);
        if (posted === 'too_large')
          return sendHtmlPage(
            reply,
            422,
            remediationPage(
              view,
              `The document must be at most ${deps.config.remediationMaxDocumentBytes} bytes.`,
            ),
          );
        const answers = await answersOf(deps, row, posted.form);
        if (typeof answers === 'string') return sendHtmlPage(reply, 422, remediationPage(view, answers));
        const doc = await documentOf(deps, view.type === 'source_of_funds' ? posted.upload : null);
        if (typeof doc === 'string') return sendHtmlPage(reply, 422, remediationPage(view, doc));
        await submitRemediation(deps, token, answers, doc);
        return sendHtmlPage(reply, 200, remediationDonePage(view.merchantName));
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}
