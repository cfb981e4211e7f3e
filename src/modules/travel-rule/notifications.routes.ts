/**
 * Inbound notifications of the travel-rule network: counterparty answers and inbound transfers.
 * Public but signed (`X-Provider-Signature`, 300 s tolerance, constant-time); unsigned, badly signed or
 * stale is 401. The sandbox network simulator delivers through this very route.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { deliverThroughRoute, keepRawJsonBody } from '../../providers/inbound-notifications';
import { TRAVEL_RULE_SIGNATURE_HEADER, type TravelRuleNotification } from '../../providers/travel-rule/port';
import { unauthorized } from '../../shared/errors';
import { PaymentMessages } from '../payments/payments.messages';
import { applyTravelRuleNotification } from './network.inbound';
import { ErrorSchema, NotificationAckSchema } from './travel-rule.schemas';

export const TRAVEL_RULE_NOTIFICATIONS_PATH = '/api/v1/providers/travel-rule/notifications';

declare module 'fastify' {
  interface FastifyRequest {
    travelRuleNotification?: TravelRuleNotification;
  }
}

export async function travelRuleNotificationRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  keepRawJsonBody(app);
  deps.providers.travelRule.attach?.({
    db: deps.db,
    clock: deps.clock,
    deliver: deliverThroughRoute(app, TRAVEL_RULE_NOTIFICATIONS_PATH),
  });

  app.post(
    '/providers/travel-rule/notifications',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['providers'],
        summary: 'Travel-rule network notification (signed)',
        description:
          `Signed with \`${TRAVEL_RULE_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody">\` ` +
          'using the provider webhook secret; older than 300 s, unsigned or badly signed: 401. Types: ' +
          '`transfer.accepted`, `transfer.rejected`, `transfer.repair_requested`, `transfer.expired` (reference = transfer_id) ' +
          'and `transfer.inbound` (reference = the network id). A replayed or older notification changes nothing.',
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
        const n = deps.providers.travelRule.verifyNotification(request.rawBody ?? '', request.headers);
        if (!n) throw unauthorized(PaymentMessages.invalidNotificationSignature);
        request.travelRuleNotification = n;
      },
    },
    async (request) => ({
      received: true,
      applied: await applyTravelRuleNotification(deps, request.travelRuleNotification!),
    }),
  );
}
