/**
 * Token.io's notifications (PUT /webhook/config points here). Token.io documents no way to
 * authenticate them, so a notification is only a hint: the route takes the payment, consent or
 * refund id from it, reads that object from Token.io, and moves our status from what Token.io
 * answers (a refund through the refunds feature's notification handling)
 * (docs/vendors/tokenio.md, point 1). The random last path segment keeps strangers from making us
 * spend API calls. Duplicates, late and out-of-order deliveries change nothing: every hint is a
 * fresh read; a lost one is caught by the reconciliation worker.
 */
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { isHint, parseHint, TokenioBank, type TokenioHint } from '../../providers/bank/tokenio/bank';
import { keepRawJsonBody } from '../../providers/inbound-notifications';
import { safeEqual } from '../../shared/crypto';
import { notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { syncMandate } from '../recurring/mandate-page.service';
import { findDefinitionBy } from '../recurring/recurring.repo';
import { syncByTransferId, syncWithNetwork } from './network-sync';
import { ErrorSchema, NotificationAckSchema } from './payments.schemas';
import { applyBankNotification } from './payments.service';

export const TOKENIO_WEBHOOK_PATH = '/api/v1/providers/tokenio/webhook';

/** The URL to register with Token.io (PUT /webhook/config). */
export function tokenioWebhookUrl(deps: Pick<Deps, 'config'>): string {
  return `${deps.config.publicUrl}${TOKENIO_WEBHOOK_PATH}/${deps.config.tokenio?.webhookPathSecret ?? ''}`;
}

async function applyHint(deps: Deps, bank: TokenioBank, hint: TokenioHint): Promise<boolean> {
  if (hint.refundId) {
    // Refunds through Token.io off (SVC_TOKENIO_REFUNDS_ENABLED): none of ours to move.
    if (!bank.refunds) return false;
    // A refund: read at Token.io, then applied by the refunds feature as any network's refund notification.
    const n = await bank.refunds.notificationFor(hint.refundId, deps.clock.now());
    return n ? (await applyBankNotification(deps, n)).applied : false;
  }
  if (hint.consentId) {
    const d = await findDefinitionBy(deps.db, { mandateRef: hint.consentId });
    return d ? syncMandate(deps, d) : false;
  }
  if (hint.paymentId && (await syncByTransferId(deps, hint.paymentId))) return true;
  if (!hint.refId) return false;
  // A payment whose id we never recorded (our answer was lost): found by our ref_id, then read by it.
  const [t] = await deps.db.select().from(transactions).where(eq(transactions.refId, hint.refId));
  if (!t || t.transferId) return false;
  return (await syncWithNetwork(deps, t)).changed;
}

export async function tokenioWebhookRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const bank = deps.providers.bank;
  if (!(bank instanceof TokenioBank) || !deps.config.tokenio) return;
  const secret = deps.config.tokenio.webhookPathSecret;
  keepRawJsonBody(app);
  app.post(
    '/providers/tokenio/webhook/:secret',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['providers'],
        summary: 'Token.io notification (a hint: the payment is read from Token.io before anything changes)',
        params: Type.Object({ secret: Type.String({ maxLength: 200 }) }),
        body: Type.Object({}, { additionalProperties: true }),
        response: { 200: NotificationAckSchema, 404: ErrorSchema },
      },
    },
    async (request) => {
      if (!safeEqual((request.params as { secret: string }).secret, secret)) throw notFound(M.notFound);
      const hint = parseHint(request.rawBody ?? '');
      if (!isHint(hint)) {
        // A body that names nothing we read: its shape (top-level keys, never values) for the logs.
        if (hint) request.log.warn({ keys: hint.keys }, 'Token.io notification names no payment or consent');
        return { received: true, applied: false };
      }
      try {
        return { received: true, applied: await applyHint(deps, bank, hint) };
      } catch (err) {
        // Token.io could not be read now: the reconciliation worker reads the payment later.
        request.log.warn({ err }, 'Token.io hint could not be checked; left to reconciliation');
        return { received: true, applied: false };
      }
    },
  );
}
