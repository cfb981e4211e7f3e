/**
 * The screening provider's notifications (screening results that were not answered within the
 * request, and the chain observer's deposits for Satoshi tests), through the generic provider route
 * (src/platform/inbound.ts). Public but signed (`X-Provider-Signature`, 300 s tolerance,
 * constant-time); unsigned, badly signed or stale is 401.
 */
import { defineInbound, signedNotificationDoc } from '../../platform/inbound';
import { SCREENING_SIGNATURE_HEADER, type ScreeningNotification } from '../../providers/screening/port';
import { unauthorized } from '../../shared/errors';
import { PaymentMessages } from '../payments/payments.messages';
import { applyDepositNotification } from './ownership-deposits.service';
import { applyScreeningOutcome } from './results.service';
import { ErrorSchema, NotificationAckSchema } from './screening.schemas';

export const screeningInbound = defineInbound<ScreeningNotification>({
  kind: 'screening',
  port: (deps) => deps.providers.screening,
  doc: {
    summary: 'Screening provider notification (signed)',
    ...signedNotificationDoc(
      SCREENING_SIGNATURE_HEADER,
      '`screening.result` (reference = screening_id) and `deposit.observed` (reference = ownership request).',
    ),
    response: { 200: NotificationAckSchema, 401: ErrorSchema },
  },
  refuse: () => unauthorized(PaymentMessages.invalidNotificationSignature),
  apply: async (deps, n) => {
    if (n.type === 'screening.result') {
      const uuidLike = /^[0-9a-f-]{36}$/i.test(n.reference);
      if (!uuidLike) return { received: true, applied: false };
      const r = await applyScreeningOutcome(deps, n.reference, n.outcome, n.revision);
      return { received: true, applied: r.applied };
    }
    return { received: true, applied: await applyDepositNotification(deps, n) };
  },
});
