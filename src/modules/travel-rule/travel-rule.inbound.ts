/**
 * The travel-rule network's notifications (counterparty answers and inbound transfers), through the
 * generic provider route (src/platform/inbound.ts). Public but signed (`X-Provider-Signature`,
 * 300 s tolerance, constant-time); unsigned, badly signed or stale is 401.
 */
import { defineInbound, signedNotificationDoc } from '../../platform/inbound';
import { TRAVEL_RULE_SIGNATURE_HEADER, type TravelRuleNotification } from '../../providers/travel-rule/port';
import { unauthorized } from '../../shared/errors';
import { PaymentMessages } from '../payments/payments.messages';
import { applyTravelRuleNotification } from './network.inbound';
import { ErrorSchema, NotificationAckSchema } from './travel-rule.schemas';

export const travelRuleInbound = defineInbound<TravelRuleNotification>({
  kind: 'travel-rule',
  port: (deps) => deps.providers.travelRule,
  doc: {
    summary: 'Travel-rule network notification (signed)',
    ...signedNotificationDoc(
      TRAVEL_RULE_SIGNATURE_HEADER,
      '`transfer.accepted`, `transfer.rejected`, `transfer.repair_requested`, `transfer.expired` (reference = transfer_id) ' +
        'and `transfer.inbound` (reference = the network id).',
    ),
    response: { 200: NotificationAckSchema, 401: ErrorSchema, 404: ErrorSchema },
  },
  refuse: () => unauthorized(PaymentMessages.invalidNotificationSignature),
  apply: async (deps, n) => ({ received: true, applied: await applyTravelRuleNotification(deps, n) }),
});
