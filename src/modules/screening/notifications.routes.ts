/**
 * Inbound notifications of the screening provider (screening results that were not answered within
 * the request, and the chain observer's deposits for Satoshi tests). Public but signed: the raw body
 * is verified (`X-Provider-Signature`, 300 s tolerance, constant-time) before anything is parsed;
 * unsigned, badly signed or stale is 401. The sandbox simulator delivers through this very route.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { deliverThroughRoute, keepRawJsonBody } from '../../providers/inbound-notifications';
import { SCREENING_SIGNATURE_HEADER, type ScreeningNotification } from '../../providers/screening/port';
import { unauthorized } from '../../shared/errors';
import { PaymentMessages } from '../payments/payments.messages';
import { applyDepositNotification } from './ownership.deposits';
import { applyScreeningOutcome } from './screening.results';
import { ErrorSchema, NotificationAckSchema } from './screening.schemas';

export const SCREENING_NOTIFICATIONS_PATH = '/api/v1/providers/screening/notifications';

declare module 'fastify' {
  interface FastifyRequest {
    screeningNotification?: ScreeningNotification;
  }
}

export async function screeningNotificationRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  keepRawJsonBody(app);
  deps.providers.screening.attach?.({
    db: deps.db,
    clock: deps.clock,
    deliver: deliverThroughRoute(app, SCREENING_NOTIFICATIONS_PATH),
  });

  app.post(
    '/providers/screening/notifications',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['providers'],
        summary: 'Screening provider notification (signed)',
        description:
          `Signed with \`${SCREENING_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody">\` ` +
          'using the provider webhook secret; older than 300 s, unsigned or badly signed: 401. Types: ' +
          '`screening.result` (reference = screening_id) and `deposit.observed` (reference = ownership request). ' +
          'A replayed or older notification changes nothing.',
        body: Type.Object(
          {
            event_id: Type.Optional(Type.String()),
            type: Type.Optional(Type.String()),
            reference: Type.Optional(Type.String()),
            revision: Type.Optional(Type.Integer()),
          },
          { additionalProperties: true },
        ),
        response: { 200: NotificationAckSchema, 401: ErrorSchema },
      },
      preValidation: async (request) => {
        const n = deps.providers.screening.verifyNotification(request.rawBody ?? '', request.headers);
        if (!n) throw unauthorized(PaymentMessages.invalidNotificationSignature);
        request.screeningNotification = n;
      },
    },
    async (request) => {
      const n = request.screeningNotification!;
      if (n.type === 'screening.result') {
        const uuidLike = /^[0-9a-f-]{36}$/i.test(n.reference);
        if (!uuidLike) return { received: true, applied: false };
        const r = await applyScreeningOutcome(deps, n.reference, n.outcome, n.revision);
        return { received: true, applied: r.applied };
      }
      return { received: true, applied: await applyDepositNotification(deps, n) };
    },
  );
}
