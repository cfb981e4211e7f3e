/**
 * Inbound notifications of the payment network. Public (no bearer token) but signed: the raw
 * body is verified with HMAC-SHA256 before anything is parsed into the status machine.
 * The sandbox bank is wired here to deliver through this very route.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { BANK_SIGNATURE_HEADER, type BankNotification } from '../../providers/bank/port';
import { deliverThroughRoute, keepRawJsonBody } from '../../providers/inbound-notifications';
import { ErrorSchema, NotificationAckSchema } from './payments.schemas';
import { applyBankNotification, verifyBankNotification } from './payments.service';

export const BANK_NOTIFICATIONS_PATH = '/api/v1/providers/bank/notifications';

declare module 'fastify' {
  interface FastifyRequest {
    bankNotification?: BankNotification;
  }
}

export async function bankNotificationRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  keepRawJsonBody(app);

  deps.providers.bank.attach?.({
    db: deps.db,
    database: deps.database,
    clock: deps.clock,
    deliver: deliverThroughRoute(app, BANK_NOTIFICATIONS_PATH),
  });

  app.post(
    '/providers/bank/notifications',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['providers'],
        summary: 'Payment network notification (signed)',
        description:
          `Signed with \`${BANK_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody">\` ` +
          'using the provider webhook secret; older than 300 s, unsigned or badly signed: 401.',
        body: Type.Object(
          {
            event_id: Type.Optional(Type.String()),
            ref_id: Type.Optional(Type.String()),
            transfer_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
            provider_status: Type.Optional(Type.String()),
            occurred_at: Type.Optional(Type.String()),
            reason: Type.Optional(Type.String()),
          },
          { additionalProperties: true },
        ),
        response: { 200: NotificationAckSchema, 401: ErrorSchema },
      },
      // The signature is checked before anything else looks at the body.
      preValidation: async (request) => {
        request.bankNotification = verifyBankNotification(deps, request.rawBody ?? '', request.headers);
      },
    },
    async (request) => applyBankNotification(deps, request.bankNotification!),
  );
}
