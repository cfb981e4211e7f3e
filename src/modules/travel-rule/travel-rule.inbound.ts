/**
 * The travel-rule network's notifications (counterparty answers and inbound transfers), through the
 * generic provider route (src/platform/inbound.ts). Public but signed (`X-Provider-Signature`,
 * 300 s tolerance, constant-time); unsigned, badly signed or stale is 401.
 */
import { Type } from 'typebox';
import { defineInbound } from '../../platform/inbound';
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
  refuse: () => unauthorized(PaymentMessages.invalidNotificationSignature),
  apply: async (deps, n) => ({ received: true, applied: await applyTravelRuleNotification(deps, n) }),
});
