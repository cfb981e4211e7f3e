/** `/checkout/mandate/{token}`: hosted mandate authorization (public; the token is the capability). */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { errorPage } from '../../platform/pages/error-page';
import { AppError } from '../../shared/errors';
import { sendHtmlPage } from '../../shared/html-page';
import { bankChoices } from '../checkout/checkout.service';
import {
  loadMandatePage,
  MANDATE_PAGE,
  mandateReturnUrl,
  startMandateAuthorization,
  syncMandate,
} from './mandate-page.service';
import { mandateChoosePage, mandateResultPage } from './mandate-page.view';

const TokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 100 }) });

function sendError(reply: FastifyReply, err: unknown) {
  if (err instanceof AppError && err.statusCode === 404)
    return sendHtmlPage(
      reply,
      404,
      errorPage(MANDATE_PAGE.notFound, 'This authorization link is not valid.'),
    );
  if (err instanceof AppError && err.statusCode === 410)
    return sendHtmlPage(reply, 410, errorPage(MANDATE_PAGE.expired, 'Ask the merchant for a new link.'));
  if (err instanceof AppError)
    return sendHtmlPage(reply, err.statusCode, errorPage('This mandate cannot continue', err.detail));
  throw err;
}

export async function mandatePageRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const banks = () => bankChoices(deps, 'mandate');
  const tokenOf = (request: { params: unknown; validationError?: unknown }) => {
    if (request.validationError) throw new AppError(404, MANDATE_PAGE.notFound);
    return (request.params as { token: string }).token;
  };

  app.get(
    '/checkout/mandate/:token',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      try {
        const s = await loadMandatePage(deps, tokenOf(request));
        if (s.expired) throw new AppError(410, MANDATE_PAGE.expired);
        if (s.d.status !== 'pending_authorization')
          return sendHtmlPage(reply, 200, mandateResultPage(s, mandateReturnUrl(s)));
        return sendHtmlPage(reply, 200, mandateChoosePage(s, await banks()));
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.post(
    '/checkout/mandate/:token/bank',
    {
      config: { auth: 'public' },
      schema: {
        hide: true,
        params: TokenParams,
        body: Type.Object({ bank_id: Type.Optional(Type.String({ maxLength: 100 })) }),
      },
      attachValidation: true,
    },
    async (request, reply) => {
      try {
        const token = tokenOf(request);
        const bankId = (request.body as { bank_id?: string } | undefined)?.bank_id ?? '';
        if (!(await banks()).some((b) => b.id === bankId)) {
          const s = await loadMandatePage(deps, token);
          return sendHtmlPage(reply, 422, mandateChoosePage(s, await banks(), MANDATE_PAGE.chooseBank));
        }
        return reply.redirect(await startMandateAuthorization(deps, token, bankId), 303);
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  /** Where the bank sends the payer back: a decided mandate goes straight back to the merchant. */
  app.get(
    '/checkout/mandate/:token/return',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      try {
        const token = tokenOf(request);
        await syncMandate(deps, (await loadMandatePage(deps, token)).d);
        const s = await loadMandatePage(deps, token);
        const back = mandateReturnUrl(s);
        if (s.d.status !== 'pending_authorization' && back) return reply.redirect(back, 303);
        return reply.redirect(`/checkout/mandate/${encodeURIComponent(token)}`, 303);
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}
