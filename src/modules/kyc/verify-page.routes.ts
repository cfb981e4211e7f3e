/** The hosted verification page (server-rendered at the root, public: the token in the URL is the capability). */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import {
  SIMULATED_OUTCOMES,
  type SimulatedChecks,
  type SimulatedOutcome,
} from '../../providers/verification/port';
import { AppError } from '../../shared/errors';
import { sendHtmlPage } from '../../shared/html-page';
import {
  acceptConsent,
  consentOf,
  type HostedLink,
  handOverToProvider,
  linkOutcome,
  loadLink,
  returnUrlOf,
  submitLink,
} from './hosted-page.service';
import { verifyConsentPage, verifyErrorPage, verifyPage, verifyResultPage } from './verify-page.view';

const TokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 100 }) });

const notFoundPage = () =>
  verifyErrorPage(
    'Verification not found',
    'This verification link is not valid. Check the link or ask for a new one.',
  );

function closedPage(reply: FastifyReply, link: HostedLink) {
  return link.state === 'used'
    ? sendHtmlPage(
        reply,
        410,
        verifyErrorPage(
          'This verification link was already used',
          'The verification has been submitted. Ask for a new link if you need to verify again.',
          link.view.merchantName,
        ),
      )
    : sendHtmlPage(
        reply,
        410,
        verifyErrorPage(
          'This verification link has expired',
          'Ask for a new verification link.',
          link.view.merchantName,
        ),
      );
}

function sendError(reply: FastifyReply, err: unknown) {
  if (err instanceof AppError && err.statusCode === 404) return sendHtmlPage(reply, 404, notFoundPage());
  if (err instanceof AppError && err.statusCode === 410)
    return sendHtmlPage(reply, 410, verifyErrorPage('This verification link is no longer valid', err.detail));
  if (err instanceof AppError)
    return sendHtmlPage(reply, err.statusCode, verifyErrorPage('Something went wrong', err.detail));
  throw err;
}

type Form = Record<string, string | undefined>;

function parseChecks(kind: 'kyc' | 'kyb', form: Form): SimulatedChecks | string {
  const on = (k: string) => form[k] === 'on' || form[k] === 'true';
  const raw = (form.aml_hits ?? '0').trim() || '0';
  if (!/^\d{1,3}$/.test(raw) || Number(raw) > 100) return 'AML hits must be a whole number from 0 to 100.';
  const aml = on('aml') ? { aml_hits: Number(raw) } : {};
  if (kind === 'kyb') return aml;
  return { liveness: on('liveness'), face_match: on('face_match'), nfc: on('nfc'), poa: on('poa'), ...aml };
}

export async function verifyPageRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const provider = deps.providers.verification;
  /** A vendor-hosted flow (Sumsub's WebSDK): our page is its first step (disclosure, a click), then the vendor's. */
  const vendorHosted = !!provider.hostedVerificationUrl;

  const consentPage = (reply: FastifyReply, link: HostedLink, status: number, error?: string) =>
    sendHtmlPage(
      reply,
      status,
      verifyConsentPage(
        link.view,
        {
          text: provider.consent?.text ?? '{merchant} uses an identity verification provider to verify you.',
          privacyUrl: provider.consent?.privacyUrl ?? null,
          version: provider.consent?.version ?? '',
          acceptedAt: consentOf(link, provider.consent?.version ?? null)?.acceptedAt ?? null,
        },
        error,
      ),
    );

  app.get(
    '/verify/:token',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      try {
        if (request.validationError) return sendHtmlPage(reply, 404, notFoundPage());
        const link = await loadLink(deps, (request.params as { token: string }).token);
        // A vendor-hosted flow may be reopened after the first visit (to resubmit); only expiry closes
        // it. A GET calls no vendor: mail scanners and link previews follow links; the hand-over
        // (data, level, vendor link) waits for the person's click (POST).
        if (vendorHosted && link.state !== 'expired') return consentPage(reply, link, 200);
        if (link.state !== 'open') return closedPage(reply, link);
        return sendHtmlPage(reply, 200, verifyPage(link.view));
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.get(
    '/verify/:token/complete',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      try {
        if (request.validationError) return sendHtmlPage(reply, 404, notFoundPage());
        const link = await loadLink(deps, (request.params as { token: string }).token);
        const status = await linkOutcome(deps, link);
        return sendHtmlPage(reply, 200, verifyResultPage(link.view, status ?? 'in_review', null));
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.post(
    '/verify/:token',
    {
      config: { auth: 'public' },
      schema: {
        hide: true,
        params: TokenParams,
        body: Type.Object(
          { outcome: Type.Optional(Type.String({ maxLength: 50 })) },
          { additionalProperties: true },
        ),
      },
      attachValidation: true,
    },
    async (request, reply) => {
      try {
        if (request.validationError?.validationContext === 'params')
          return sendHtmlPage(reply, 404, notFoundPage());
        const link = await loadLink(deps, (request.params as { token: string }).token);
        const form = (request.body ?? {}) as Form;
        if (vendorHosted) {
          if (link.state === 'expired') return closedPage(reply, link);
          let consent = consentOf(link, provider.consent?.version ?? null);
          if (provider.consent && !consent) {
            if (form.consent !== 'accept')
              return consentPage(reply, link, 422, 'Tick the box to accept before you continue.');
            if (form.consent_version !== provider.consent.version)
              return consentPage(
                reply,
                link,
                409,
                'The text changed since you opened the page: read it again.',
              );
            consent = await acceptConsent(deps, link, provider.consent.version, {
              ip: request.ip ?? null,
              userAgent: request.headers['user-agent'] ?? null,
            });
            if (!consent) return closedPage(reply, { ...link, state: 'expired' });
          }
          return reply.redirect(await handOverToProvider(deps, link, consent), 303);
        }
        if (link.state !== 'open') return closedPage(reply, link);
        const outcome = form.outcome ?? '';
        if (!(SIMULATED_OUTCOMES as readonly string[]).includes(outcome))
          return sendHtmlPage(reply, 422, verifyPage(link.view, 'Choose an outcome to continue.'));
        const checks = parseChecks(link.view.kind, form);
        if (typeof checks === 'string') return sendHtmlPage(reply, 422, verifyPage(link.view, checks));
        const status = await submitLink(deps, link, outcome as SimulatedOutcome, checks);
        if (status === null) return closedPage(reply, { ...link, state: 'used' });
        const back = returnUrlOf(link.session);
        if (back) return reply.redirect(back, 303);
        return sendHtmlPage(reply, 200, verifyResultPage(link.view, status, null));
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}
