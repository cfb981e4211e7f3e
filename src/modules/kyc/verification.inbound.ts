/**
 * The verification provider's notifications, through the generic provider route
 * (src/platform/inbound.ts). Public (no bearer token) but signed: the provider verifies the raw body
 * (the sandbox: `X-Provider-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, 300 s
 * tolerance; Sumsub: its digest header) before anything is parsed.
 */
import { Type } from 'typebox';
import { defineInbound } from '../../platform/inbound';
import {
  VERIFICATION_SIGNATURE_HEADER,
  type VerificationNotification,
} from '../../providers/verification/port';
import { unauthorized } from '../../shared/errors';
import { PaymentMessages } from '../payments/payments.messages';
import { ErrorSchema, NotificationAckSchema } from './kyc.schemas';
import { applyVerificationNotification } from './notifications.service';

export const VERIFICATION_NOTIFICATIONS_PATH = '/api/v1/providers/verification/notifications';

export const verificationInbound = defineInbound<VerificationNotification>({
  kind: 'verification',
  port: (deps) => deps.providers.verification,
  doc: {
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
  refuse: () => unauthorized(PaymentMessages.invalidNotificationSignature),
  apply: (deps, n) => applyVerificationNotification(deps, n),
});
