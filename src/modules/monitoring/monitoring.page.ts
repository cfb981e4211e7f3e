/** The hosted remediation page (public: the token in the URL is the capability). 404 unknown, 410 expired or used. */
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { AppError } from '../../shared/errors';
import { sendHtmlPage } from '../../shared/html-page';
import { currencyDigits } from '../../shared/money';
import {
  type RemediationView,
  remediationDonePage,
  remediationErrorPage,
  remediationPage,
  SOURCES,
} from './monitoring.page-view';
import type { MonitoredTransactionRow } from './monitoring.repo';
import { openRemediation, submitRemediation } from './monitoring.reviews';
import { amountView } from './monitoring.view';

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
  return {
    token,
    merchantName: merchant,
    type: row.remediationType ?? 'source_of_funds',
    amount: amountView(row.amount, currencyDigits(row.currency)),
    currency: row.currency,
    counterpartyName: cp.name,
    expiresAt: row.remediationExpiresAt ?? new Date(),
    wallet: cp.wallet ?? null,
  };
}

type Form = Record<string, string | undefined>;

/** The answers of the page's form, or the message to show. */
function answersOf(type: string, form: Form): Record<string, string> | string {
  if (type === 'source_of_funds') {
    const source = form.source ?? '';
    const explanation = (form.explanation ?? '').trim();
    if (!(SOURCES as readonly string[]).includes(source)) return 'Choose where the funds come from.';
    if (explanation.length < 1 || explanation.length > 2000)
      return 'Explain the origin of the funds (up to 2000 characters).';
    return { source, explanation };
  }
  if (form.confirm !== 'on') return 'Tick the confirmation to continue.';
  return { confirmed: 'true' };
}

export async function remediationPageRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;

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
        const view = await viewOf(deps, row, token);
        const answers = answersOf(view.type, (request.body ?? {}) as Form);
        if (typeof answers === 'string') return sendHtmlPage(reply, 422, remediationPage(view, answers));
        await submitRemediation(deps, token, answers);
        return sendHtmlPage(reply, 200, remediationDonePage(view.merchantName));
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}
