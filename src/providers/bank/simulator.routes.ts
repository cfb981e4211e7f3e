/** Pages of the sandbox bank (its "online banking"): the authorization page and the payer's decision. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { errorPage } from '../../platform/pages/error-page';
import { bankColor } from '../../platform/pages/layout';
import { SANDBOX_BANKS, SANDBOX_OUTCOMES, SandboxBank, type SandboxSessionRow } from './simulator';
import { bankAuthorizationPage, bankSessionClosedPage } from './views';

function view(s: SandboxSessionRow) {
  const i = Math.max(
    0,
    SANDBOX_BANKS.findIndex((b) => b.id === s.bankId),
  );
  return {
    transferId: s.transferId ?? '',
    bankName: SANDBOX_BANKS[i]!.name,
    bankColor: bankColor(i),
    merchantName: s.merchantName,
    amount: s.amount,
    currency: s.currency,
    refId: s.refId,
  };
}

export async function sandboxBankRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const bank = opts.deps.providers.bank;
  if (!(bank instanceof SandboxBank)) return;
  const params = Type.Object({ transfer_id: Type.String({ maxLength: 200 }) });
  const page = (reply: import('fastify').FastifyReply, status: number, body: string) =>
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(body);

  app.get(
    '/sandbox-bank/authorize/:transfer_id',
    { config: { auth: 'public' }, schema: { hide: true, params } },
    async (request, reply) => {
      const { transfer_id } = request.params as { transfer_id: string };
      const s = await bank.findByTransfer(transfer_id);
      if (!s)
        return page(
          reply,
          404,
          errorPage('Payment request not found', 'This bank link is not valid.', 'Sandbox Bank'),
        );
      if (!bank.isSessionOpen(s)) {
        const expired = s.providerStatus === 'awaiting_bank_authorization';
        return page(reply, 410, bankSessionClosedPage(view(s), s.returnUrl, expired));
      }
      return page(reply, 200, bankAuthorizationPage(view(s)));
    },
  );

  app.post(
    '/sandbox-bank/authorize/:transfer_id',
    {
      config: { auth: 'public' },
      schema: {
        hide: true,
        params,
        body: Type.Object({ outcome: Type.String() }),
      },
      attachValidation: true,
    },
    async (request, reply) => {
      const { transfer_id } = request.params as { transfer_id: string };
      const outcome = (request.body as { outcome?: string } | undefined)?.outcome ?? '';
      if (request.validationError || !Object.hasOwn(SANDBOX_OUTCOMES, outcome)) {
        return page(
          reply,
          422,
          errorPage('Choose an outcome', 'Pick one of the buttons on the bank page.', 'Sandbox Bank'),
        );
      }
      const s = await bank.findByTransfer(transfer_id);
      if (!s)
        return page(
          reply,
          404,
          errorPage('Payment request not found', 'This bank link is not valid.', 'Sandbox Bank'),
        );
      const r = await bank.authorize(transfer_id, outcome as keyof typeof SANDBOX_OUTCOMES);
      if (!r.applied) {
        const expired = s.providerStatus === 'awaiting_bank_authorization';
        return page(reply, 410, bankSessionClosedPage(view(s), s.returnUrl, expired));
      }
      return reply.redirect(r.returnUrl ?? '/', 303);
    },
  );
}
