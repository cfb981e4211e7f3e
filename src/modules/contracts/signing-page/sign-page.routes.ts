/**
 * The hosted signing page `/sign/{token}` (public: the token is the capability). GET shows the OTP
 * step or the document with the participant's fields; POST handles send/verify OTP, Sign and Decline.
 * The signing order is enforced: a participant whose group has not been invited sees a waiting page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../../deps';
import { ContractMessages } from '../contracts.messages';
import {
  documentBytes,
  documentsForPage,
  isHostedViewer,
  isLinkGone,
  loadSignContext,
  needsOtp,
  type ParticipantContext,
  recordHostedViewerOpened,
  reportToProvider,
  type SignContext,
  sealedForViewer,
  sendOtp,
  verifyOtp,
} from './sign-page.service';
import { messagePage, otpPage, signPage } from './sign-page.view';

const TokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 100 }) });
const DocParams = Type.Object({
  token: Type.String({ minLength: 10, maxLength: 100 }),
  document_id: Type.String({ format: 'uuid' }),
});
type Form = Record<string, string | string[] | undefined>;
type PCtx = ParticipantContext;

function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header(
      'content-security-policy',
      "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; frame-src 'self'; form-action *; frame-ancestors 'none'",
    )
    .send(body);
}

const str = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';
const seenOf = (req: FastifyRequest) => ({
  ip: req.ip,
  userAgent: (req.headers['user-agent'] ?? '').slice(0, 500) || null,
});

export async function signPageRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const notFoundPage = (reply: FastifyReply) =>
    sendPage(
      reply,
      404,
      messagePage(
        'Secure signing',
        'Not found',
        'Signing link not found',
        'This link is not valid. It may have been replaced by a newer one; check your latest email.',
        'failed',
      ),
    );

  async function render(
    reply: FastifyReply,
    ctx: SignContext,
    token: string,
    status = 200,
    error: string | null = null,
    otpSent = false,
  ) {
    const r = ctx.request;
    if (isLinkGone(ctx))
      return sendPage(
        reply,
        410,
        messagePage(
          ctx.merchantName,
          r.title,
          'This signing link is no longer active',
          `The request is ${r.status}. Contact ${ctx.merchantName} if you think this is a mistake.`,
          'expired',
        ),
      );
    if (ctx.kind === 'cc')
      return sendPage(
        reply,
        status,
        signPage({
          merchantName: ctx.merchantName,
          title: r.title,
          token,
          name: '',
          email: '',
          role: '',
          message: r.message,
          documents: await documentsForPage(deps, r, null),
          readOnly: true,
          sandbox: deps.config.environment === 'sandbox',
        }),
      );
    const p = ctx.participant;
    if (p.status === 'completed')
      return sendPage(
        reply,
        200,
        messagePage(
          ctx.merchantName,
          r.title,
          'You have signed',
          `Thank you, ${p.name}. Everyone receives the signed document by email once all parties have signed.`,
          'success',
        ),
      );
    if (p.status === 'declined')
      return sendPage(
        reply,
        200,
        messagePage(
          ctx.merchantName,
          r.title,
          'You declined to sign',
          `${ctx.merchantName} has been told.`,
          'failed',
        ),
      );
    if (p.status === 'waiting' || r.status === 'pending')
      return sendPage(
        reply,
        200,
        messagePage(
          ctx.merchantName,
          r.title,
          'Not your turn yet',
          'Others sign before you. We will email you when it is your turn.',
          'pending',
        ),
      );
    if (needsOtp(p))
      return sendPage(
        reply,
        status,
        otpPage({
          merchantName: ctx.merchantName,
          title: r.title,
          token,
          email: p.email,
          sent: otpSent || Boolean(p.otpHash),
          error,
        }),
      );
    // A viewer whose signing a vendor hosts reads (the sealed documents once completed); others sign.
    const viewer = isHostedViewer(deps, ctx) ? { sealed: sealedForViewer(deps, ctx) } : undefined;
    return sendPage(
      reply,
      status,
      signPage({
        merchantName: ctx.merchantName,
        title: r.title,
        token,
        name: p.name,
        email: p.email,
        role: p.role,
        message: r.message,
        documents: viewer
          ? await documentsForPage(deps, r, null, viewer.sealed ? 'signed' : 'original')
          : await documentsForPage(deps, r, p.role),
        readOnly: viewer !== undefined,
        viewer,
        error,
        sandbox: deps.config.environment === 'sandbox',
      }),
    );
  }

  app.get(
    '/sign/:token',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (req, reply) => {
      if (req.validationError) return notFoundPage(reply);
      const token = (req.params as { token: string }).token;
      let ctx = await loadSignContext(deps, token);
      if (!ctx) return notFoundPage(reply);
      // A vendor hosting the signing collects signatures and approvals on its page; viewers stay here.
      if (deps.providers.esign.hosted && ctx.kind === 'participant' && !isHostedViewer(deps, ctx))
        return handOver(req, reply, ctx, token);
      if (
        ctx.kind === 'participant' &&
        ctx.participant.status === 'sent' &&
        !needsOtp(ctx.participant) &&
        !isLinkGone(ctx)
      ) {
        if (isHostedViewer(deps, ctx)) await recordHostedViewerOpened(deps, ctx, seenOf(req));
        else await reportToProvider(deps, ctx, 'participant.viewed', seenOf(req));
        ctx = (await loadSignContext(deps, token)) ?? ctx;
      }
      return render(reply, ctx, token);
    },
  );

  app.get(
    '/sign/:token/documents/:document_id',
    { config: { auth: 'public' }, schema: { hide: true, params: DocParams }, attachValidation: true },
    async (req, reply) => {
      if (req.validationError) return notFoundPage(reply);
      const { token, document_id } = req.params as { token: string; document_id: string };
      const ctx = await loadSignContext(deps, token);
      if (!ctx || isLinkGone(ctx) || (ctx.kind === 'participant' && needsOtp(ctx.participant)))
        return notFoundPage(reply);
      const d = await documentBytes(deps, ctx, document_id);
      if (!d) return notFoundPage(reply);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="${d.fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
        .header('cache-control', 'no-store')
        .header('x-frame-options', 'SAMEORIGIN')
        .header('x-content-type-options', 'nosniff')
        .send(d.content);
    },
  );

  app.post(
    '/sign/:token',
    {
      config: { auth: 'public' },
      schema: { hide: true, params: TokenParams, body: Type.Object({}, { additionalProperties: true }) },
      attachValidation: true,
    },
    async (req, reply) => {
      if (req.validationError?.validationContext === 'params') return notFoundPage(reply);
      const token = (req.params as { token: string }).token;
      const ctx = await loadSignContext(deps, token);
      if (!ctx) return notFoundPage(reply);
      if (ctx.kind === 'cc' || isLinkGone(ctx)) return render(reply, ctx, token);
      const form = (req.body ?? {}) as Form;
      const action = str(form.action);
      const p = ctx.participant;
      if (!['sent', 'viewed'].includes(p.status)) return render(reply, ctx, token);
      if (action === 'send_otp') {
        await sendOtp(deps, ctx);
        return render(reply, (await loadSignContext(deps, token)) ?? ctx, token, 200, null, true);
      }
      if (action === 'verify_otp') {
        const problem = await verifyOtp(deps, ctx, str(form.code), seenOf(req));
        const fresh = (await loadSignContext(deps, token)) as PCtx;
        if (problem) return render(reply, fresh, token, 422, problem, true);
        if (fresh.participant.status === 'sent')
          await reportToProvider(deps, fresh, 'participant.viewed', seenOf(req));
        return reply.redirect(`/sign/${token}`, 303);
      }
      if (needsOtp(p)) return render(reply, ctx, token, 403, ContractMessages.otpRequired);
      // Signing and declining happen on the vendor's page when it hosts the signing.
      if (deps.providers.esign.hosted) return reply.redirect(`/sign/${token}`, 303);
      if (action === 'decline') {
        const reason = str(form.reason).trim().slice(0, 500) || null;
        await reportToProvider(deps, ctx, 'participant.declined', { ...seenOf(req), reason });
        return finish(reply, ctx, token);
      }
      if (action !== 'sign') return render(reply, ctx, token, 422, 'Choose Sign or Decline.');
      const docs = await documentsForPage(deps, ctx.request, p.role);
      const values: Record<string, string> = {};
      for (const f of docs.flatMap((d) => d.fields)) {
        if (f.type === 'date_signed') continue;
        const v = str(form[`f_${f.field_id}`]).trim().slice(0, 1000);
        if (f.required && v === '')
          return render(
            reply,
            ctx,
            token,
            422,
            ContractMessages.requiredFieldMissing(f.label ?? f.type.replace('_', ' ')),
          );
        if (v !== '') values[f.field_id] = f.type === 'checkbox' ? 'true' : v;
      }
      await reportToProvider(deps, ctx, 'participant.signed', { ...seenOf(req), values });
      return finish(reply, ctx, token);
    },
  );

  /**
   * A vendor hosting the signing (docs/vendors/documenso.md): its own page collects the signature. The
   * participant is handed over once our gate (the email code) is passed and only when it is their
   * turn; the vendor's link is asked for on each visit, never stored. Otherwise our page says why.
   */
  async function handOver(req: FastifyRequest, reply: FastifyReply, ctx: PCtx, token: string) {
    const hosted = deps.providers.esign.hosted!;
    const p = ctx.participant;
    const ref = ctx.request.envelopeRef;
    const unavailable = () =>
      sendPage(
        reply,
        503,
        messagePage(
          ctx.merchantName,
          ctx.request.title,
          'Signing is unavailable',
          ContractMessages.signingUnavailable,
          'pending',
        ),
      );
    if ((p.status !== 'sent' && p.status !== 'viewed') || needsOtp(p) || isLinkGone(ctx))
      return render(reply, ctx, token);
    // Its turn and past the gate, but the vendor's recipient is being replaced (a correction).
    if (!ref || !p.providerRecipientRef) return unavailable();
    try {
      const url = await hosted.signingUrl(ref, p.providerRecipientRef);
      return reply
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .redirect(url, 303);
    } catch (err) {
      req.log.warn({ err }, 'the e-signing provider could not hand the participant over');
      return unavailable();
    }
  }

  async function finish(reply: FastifyReply, ctx: PCtx, token: string) {
    const r = ctx.request;
    if (r.redirectUrl) {
      const u = new URL(r.redirectUrl);
      u.searchParams.set('contract_request_id', r.id);
      u.searchParams.set('participant_id', ctx.participant.id);
      return reply.redirect(u.toString(), 303);
    }
    return render(reply, (await loadSignContext(deps, token)) ?? ctx, token);
  }
}
