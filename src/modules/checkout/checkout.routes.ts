/** The hosted checkout (server-rendered HTML at the root, public: the token in the URL is the capability). */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { errorPage } from '../../platform/pages/error-page';
import { AppError } from '../../shared/errors';
import { sendHtmlPage } from '../../shared/html-page';
import { M } from '../../shared/messages';
import { isTerminal } from '../payments/payments.machine';
import {
  bankChoices,
  type CheckoutState,
  cancelByPayer,
  describeSession,
  loadCheckout,
  merchantReturnUrl,
  startBankAuthorization,
  syncOnReturn,
} from './checkout.service';
import {
  checkoutPage,
  confirmingPage,
  inProgressPage,
  type PaymentView,
  resultPage,
} from './views/pages.view';
import { CHECKOUT_CSS } from './views/styles.view';

const TokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 100 }) });

function viewOf(deps: Deps, s: CheckoutState): PaymentView {
  const t = s.transaction;
  return {
    token: t.checkoutToken,
    merchantName: s.merchantName,
    amount: t.amount,
    currency: t.currency,
    description: t.description,
    reference: t.refId,
    expiresAt: t.expiresAt,
    status: t.status,
    sandbox: deps.config.environment === 'sandbox',
    heldForReview: t.reconciliationState === 'manual_review_required',
    consent: s.consent,
  };
}

function sendError(deps: Deps, reply: FastifyReply, err: unknown) {
  const env = { sandbox: deps.config.environment === 'sandbox' };
  if (err instanceof AppError && err.statusCode === 404)
    return sendHtmlPage(
      reply,
      404,
      errorPage(
        'Payment not found',
        'This payment link is not valid. Check the link or ask the merchant for a new one.',
        undefined,
        env,
      ),
    );
  if (err instanceof AppError && err.statusCode < 500)
    return sendHtmlPage(
      reply,
      err.statusCode,
      errorPage('This payment cannot continue', err.detail, undefined, env),
    );
  if (err instanceof AppError)
    return sendHtmlPage(reply, err.statusCode, errorPage('Something went wrong', err.detail, undefined, env));
  throw err;
}

/** The checkout of a payer back from the bank: "Confirming your payment" until the payment is final. */
const confirmingUrl = (token: string) => `/checkout/${encodeURIComponent(token)}?returned=1`;

export async function checkoutRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  /** The banks that can take this payment's currency. */
  const banks = (currency: string) => bankChoices(deps, 'payment', currency);

  app.get(
    '/checkout/assets/checkout.css',
    { config: { auth: 'public' }, schema: { hide: true } },
    async (_req, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .send(CHECKOUT_CSS),
  );

  app.get(
    '/checkout/:token',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      try {
        if (request.validationError) throw new AppError(404, M.transactionNotFound);
        const { token } = request.params as { token: string };
        const returned = (request.query as { returned?: string } | undefined)?.returned === '1';
        const state = await loadCheckout(deps, token);
        const t = state.transaction;
        if (isTerminal(t.status))
          return sendHtmlPage(reply, 200, resultPage(viewOf(deps, state), merchantReturnUrl(state)));
        const session = await describeSession(deps, t);
        // Back from the bank, or the bank has the payment: "Confirming", reloading itself until final.
        if (session.kind === 'continue' && (returned || session.bankHasPayment))
          return sendHtmlPage(
            reply,
            200,
            confirmingPage(viewOf(deps, state), {
              continueUrl: session.bankHasPayment ? null : session.url,
              refreshUrl: confirmingUrl(token),
            }),
          );
        if (session.kind === 'continue')
          return sendHtmlPage(reply, 200, inProgressPage(viewOf(deps, state), session.url));
        return sendHtmlPage(
          reply,
          200,
          checkoutPage(viewOf(deps, state), await banks(t.currency), { restarted: session.restarted }),
        );
      } catch (err) {
        return sendError(deps, reply, err);
      }
    },
  );

  app.post(
    '/checkout/:token/bank',
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
      const { token } = request.params as { token: string };
      try {
        if (request.validationError?.validationContext === 'params')
          throw new AppError(404, M.transactionNotFound);
        const bankId = (request.body as { bank_id?: string } | undefined)?.bank_id ?? '';
        const state = await loadCheckout(deps, token);
        const offered = await banks(state.transaction.currency);
        if (!offered.some((b) => b.id === bankId)) {
          if (isTerminal(state.transaction.status))
            return sendHtmlPage(
              reply,
              409,
              resultPage(viewOf(deps, state), merchantReturnUrl(state), M.terminalCannotCheckout),
            );
          return sendHtmlPage(
            reply,
            422,
            checkoutPage(viewOf(deps, state), offered, { error: 'Choose your bank to continue.' }),
          );
        }
        // The payer's IP (request.ip honours SVC_TRUST_PROXY behind a proxy) for the network's risk checks.
        const url = await startBankAuthorization(deps, token, bankId, request.ip || null);
        return reply.redirect(url, 303);
      } catch (err) {
        if (err instanceof AppError && err.statusCode === 422) {
          const state = await loadCheckout(deps, token);
          return sendHtmlPage(
            reply,
            422,
            checkoutPage(viewOf(deps, state), await banks(state.transaction.currency), { error: err.detail }),
          );
        }
        if (err instanceof AppError && err.statusCode === 409) {
          const state = await loadCheckout(deps, token).catch(() => null);
          if (state)
            return sendHtmlPage(
              reply,
              409,
              resultPage(viewOf(deps, state), merchantReturnUrl(state), M.terminalCannotCheckout),
            );
        }
        return sendError(deps, reply, err);
      }
    },
  );

  app.post(
    '/checkout/:token/cancel',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      try {
        if (request.validationError) throw new AppError(404, M.transactionNotFound);
        const state = await cancelByPayer(deps, (request.params as { token: string }).token);
        const back = merchantReturnUrl(state);
        if (back) return reply.redirect(back, 303);
        return sendHtmlPage(reply, 200, resultPage(viewOf(deps, state), null));
      } catch (err) {
        return sendError(deps, reply, err);
      }
    },
  );

  /**
   * Where the bank sends the payer back. Never straight on to the merchant, in the sandbox as in
   * production: the payer first reads the outcome on the checkout ("Payment complete" with a way back
   * to the merchant), or "Confirming your payment" while the bank has not answered yet.
   */
  app.get(
    '/checkout/:token/return',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      try {
        if (request.validationError) throw new AppError(404, M.transactionNotFound);
        const { token } = request.params as { token: string };
        const state = await syncOnReturn(deps, await loadCheckout(deps, token));
        if (isTerminal(state.transaction.status))
          return reply.redirect(`/checkout/${encodeURIComponent(token)}`, 303);
        return reply.redirect(confirmingUrl(token), 303);
      } catch (err) {
        return sendError(deps, reply, err);
      }
    },
  );
}
