/**
 * The e-signing provider's notifications, through the generic provider route
 * (src/platform/inbound.ts): public but signed (`X-Provider-Signature`, 300 s tolerance,
 * constant-time). A vendor adapter with its own inbound part (Documenso: `X-Documenso-Secret`) posts to
 * `/api/v1/providers/esign/{name}/notifications`; its notifications are hints, re-read before anything
 * changes (requests/esign-notifications.service.ts). Without an adapter (production, SVC_ESIGN_PROVIDER=none) the route answers 503
 * and stores nothing.
 */
import { Type } from 'typebox';
import { defineInbound } from '../../platform/inbound';
import type { EsignHint, EsignNotification } from '../../providers/esign/port';
import { AppError, unauthorized } from '../../shared/errors';
import { PaymentMessages } from '../payments/payments.messages';
import { ContractMessages } from './contracts.messages';
import { ErrorSchema } from './contracts.schemas';
import { applyEsignNotification, rereadEsignEnvelope } from './requests/esign-notifications.service';
import './requests/payment.service';

export const ESIGN_NOTIFICATIONS_PATH = '/api/v1/providers/esign/notifications';

export const esignInbound = defineInbound<EsignNotification, EsignHint>({
  kind: 'esign',
  port: (deps) => deps.providers.esign,
  doc: {
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
    errors: [401, 503],
  },
  guard: (deps) => {
    if (!deps.providers.esign.configured) throw new AppError(503, ContractMessages.providerNotConfigured);
  },
  refuse: () => unauthorized(PaymentMessages.invalidNotificationSignature),
  apply: (deps, n) => applyEsignNotification(deps, n),
  // Vendors whose notifications are hints (Documenso): the envelope is read again first.
  reread: (deps, hint) => rereadEsignEnvelope(deps, hint),
});
