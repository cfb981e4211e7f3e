/**
 * Inbound notifications of the verification provider. Public (no bearer token) but signed: the raw
 * body is verified (`X-Provider-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, 300 s
 * tolerance) before anything is parsed. The sandbox provider is wired here to deliver through
 * this very route.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { deliverThroughRoute, keepRawJsonBody } from '../../providers/inbound-notifications';
import {
  VERIFICATION_SIGNATURE_HEADER,
  type VerificationNotification,
} from '../../providers/verification/port';
import { ErrorSchema, NotificationAckSchema } from './kyc.schemas';
import { applyVerificationNotification, verifyVerificationNotification } from './notifications.service';

export const VERIFICATION_NOTIFICATIONS_PATH = '/api/v1/providers/verification/notifications';

declare module 'fastify' {
  interface FastifyRequest {
    verificationNotification?: VerificationNotification;
  }
}

export async function verificationNotificationRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  keepRawJsonBody(app);

  deps.providers.verification.attach?.({
    db: deps.db,
    clock: deps.clock,
    deliver: deliverThroughRoute(app, VERIFICATION_NOTIFICATIONS_PATH),
  });

  app.post(
    '/providers/verification/notifications',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['providers'],
        summary: 'Verification provider notification (signed)',
        description:
          `Signed with \`${VERIFICATION_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody">\` ` +
          'using the provider webhook secret; older than 300 s, unsigned or badly signed: 401. The service then ' +
          'records the notification and answers within about 1.5 s: the verification result is re-read from the ' +
          'provider by a job (retried while the provider is unreachable); a replay or an older notification ' +
          'changes nothing.',
        body: Type.Object(
          {
            event_id: Type.Optional(Type.String()),
            verification_ref: Type.Optional(Type.String()),
            status: Type.Optional(Type.String()),
            revision: Type.Optional(Type.Integer()),
            occurred_at: Type.Optional(Type.String()),
          },
          { additionalProperties: true },
        ),
        response: { 200: NotificationAckSchema, 401: ErrorSchema },
      },
      // The signature is checked before anything else looks at the body.
      preValidation: async (request) => {
        request.verificationNotification = verifyVerificationNotification(
          deps,
          request.rawBody ?? '',
          request.headers,
        );
      },
    },
    async (request) => applyVerificationNotification(deps, request.verificationNotification!),
  );
}
