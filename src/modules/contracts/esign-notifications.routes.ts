/**
 * Inbound notifications of the e-signing provider: public but signed (`X-Provider-Signature`,
 * 300 s tolerance, constant-time); the sandbox simulator delivers through this very route. Without
 * an adapter (production, SVC_ESIGN_PROVIDER=none) the route answers 503 and stores nothing.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import type { EsignNotification } from '../../providers/esign/port';
import { deliverThroughRoute, keepRawJsonBody } from '../../providers/inbound-notifications';
import { AppError } from '../../shared/errors';
import { ContractMessages } from './contracts.messages';
import { ErrorSchema } from './contracts.schemas';
import { applyEsignNotification, verifyEsignNotification } from './requests.notifications';
import './requests/payment.service';

export const ESIGN_NOTIFICATIONS_PATH = '/api/v1/providers/esign/notifications';

declare module 'fastify' {
  interface FastifyRequest {
    esignNotification?: EsignNotification;
  }
}

export async function esignNotificationRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  keepRawJsonBody(app);
  deps.providers.esign.attach?.({
    db: deps.db,
    clock: deps.clock,
    deliver: deliverThroughRoute(app, ESIGN_NOTIFICATIONS_PATH),
  });

  app.post(
    '/providers/esign/notifications',
    {
      config: { auth: 'public', errors: [401, 503] },
      schema: {
        tags: ['providers'],
        summary: 'E-signing provider notification (signed)',
        description:
          'Signed with `X-Provider-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.rawBody">`; unsigned, badly signed or ' +
          'older than 300 s: 401. A replayed or older revision changes nothing.',
        body: Type.Object({}, { additionalProperties: true }),
        response: {
          200: Type.Object({ received: Type.Boolean(), applied: Type.Boolean() }),
          401: ErrorSchema,
          503: ErrorSchema,
        },
      },
      preValidation: async (request) => {
        if (!deps.providers.esign.configured) throw new AppError(503, ContractMessages.providerNotConfigured);
        request.esignNotification = verifyEsignNotification(deps, request.rawBody ?? '', request.headers);
      },
    },
    async (request) => applyEsignNotification(deps, request.esignNotification!),
  );
}
