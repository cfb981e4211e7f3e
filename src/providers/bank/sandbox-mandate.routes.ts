/** The sandbox bank's mandate authorization page: Authorize mandate, Reject, Let it time out. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { errorPage } from '../../platform/pages/error-page';
import { sendHtmlPage } from '../../shared/html-page';
import { MANDATE_OUTCOMES, type MandateOutcome, periodicLimitOf } from './sandbox-mandates';
import { SANDBOX_BANKS, SandboxBank } from './simulator';
import { bankMandateClosedPage, bankMandatePage } from './views';

export async function sandboxMandateRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const bank = opts.deps.providers.bank;
  if (!(bank instanceof SandboxBank)) return;
  const mandates = bank.mandates;
  const params = Type.Object({ mandate_ref: Type.String({ maxLength: 200 }) });
  const notFoundPage = () =>
    errorPage('Mandate request not found', 'This bank link is not valid.', 'Sandbox Bank');
  const viewOf = (m: NonNullable<Awaited<ReturnType<typeof mandates.find>>>) => {
    const i = Math.max(
      0,
      SANDBOX_BANKS.findIndex((b) => b.id === m.bankId),
    );
    return { ...m, periodicLimit: periodicLimitOf(m), bankName: SANDBOX_BANKS[i]!.name, index: i };
  };

  app.get(
    '/sandbox-bank/mandates/:mandate_ref',
    { config: { auth: 'public' }, schema: { hide: true, params } },
    async (request, reply) => {
      const m = await mandates.find((request.params as { mandate_ref: string }).mandate_ref);
      if (!m) return sendHtmlPage(reply, 404, notFoundPage());
      if (!mandates.isOpen(m)) return sendHtmlPage(reply, 410, bankMandateClosedPage(viewOf(m)));
      return sendHtmlPage(reply, 200, bankMandatePage(viewOf(m)));
    },
  );

  app.post(
    '/sandbox-bank/mandates/:mandate_ref',
    {
      config: { auth: 'public' },
      schema: { hide: true, params, body: Type.Object({ outcome: Type.String({ maxLength: 50 }) }) },
      attachValidation: true,
    },
    async (request, reply) => {
      const ref = (request.params as { mandate_ref: string }).mandate_ref;
      const outcome = (request.body as { outcome?: string } | undefined)?.outcome ?? '';
      const m = await mandates.find(ref);
      if (!m) return sendHtmlPage(reply, 404, notFoundPage());
      if (request.validationError || !Object.hasOwn(MANDATE_OUTCOMES, outcome))
        return sendHtmlPage(reply, 422, bankMandatePage(viewOf(m)));
      const r = await mandates.decide(ref, outcome as MandateOutcome);
      if (!r.applied) return sendHtmlPage(reply, 410, bankMandateClosedPage(viewOf(m)));
      return reply.redirect(r.returnUrl ?? '/', 303);
    },
  );
}
