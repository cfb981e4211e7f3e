/**
 * The payment network's notifications, through the generic provider route (src/platform/inbound.ts).
 * A signed network (the sandbox bank: `x-bank-signature`, HMAC-SHA256, 300 s) sends notifications
 * that are applied through the status machine; a network that signs nothing (Token.io) sends hints:
 * the payment, mandate or refund they name is read from the network and our status moves from what
 * it answers (docs/vendors/tokenio.md, point 1). Duplicates, late and out-of-order deliveries change
 * nothing: every hint is a fresh read; a lost one is caught by the network sweep.
 */
import { eq } from 'drizzle-orm';
import { Type } from 'typebox';
import { transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { defineInbound } from '../../platform/inbound';
import { BANK_SIGNATURE_HEADER, type BankHint, type BankNotification } from '../../providers/bank/port';
import { unauthorized } from '../../shared/errors';
import { syncMandate } from '../recurring/mandate-page.service';
import { findDefinitionBy } from '../recurring/recurring.repo';
import { syncByTransferId, syncWithNetwork } from './network-sync.service';
import { PaymentMessages } from './payments.messages';
import { ErrorSchema, NotificationAckSchema } from './payments.schemas';
import { applyBankNotification } from './payments.service';

export const BANK_NOTIFICATIONS_PATH = '/api/v1/providers/bank/notifications';

/** Reads again what a hint names; true when our status moved. */
async function rereadHint(deps: Deps, hint: BankHint): Promise<boolean> {
  const bank = deps.providers.bank;
  if (hint.refundId) {
    // Refunds through the network off (e.g. SVC_TOKENIO_REFUNDS_ENABLED): none of ours to move.
    if (!bank.refunds?.notificationFor) return false;
    // A refund: read at the network, then applied by the refunds feature as any network's refund notification.
    const n = await bank.refunds.notificationFor(hint.refundId, deps.clock.now());
    return n ? (await applyBankNotification(deps, n)).applied : false;
  }
  if (hint.consentId) {
    const d = await findDefinitionBy(deps.db, { mandateRef: hint.consentId });
    return d ? syncMandate(deps, d) : false;
  }
  if (hint.paymentId && (await syncByTransferId(deps, hint.paymentId))) return true;
  if (!hint.refId) return false;
  // A payment whose id we never recorded (our answer was lost): found by our ref_id, then read by it.
  const [t] = await deps.db.select().from(transactions).where(eq(transactions.refId, hint.refId));
  if (!t || t.transferId) return false;
  return (await syncWithNetwork(deps, t)).changed;
}

export const bankInbound = defineInbound<BankNotification, BankHint>({
  kind: 'bank',
  port: (deps) => deps.providers.bank,
  doc: {
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
  refuse: () => unauthorized(PaymentMessages.invalidNotificationSignature),
  apply: (deps, n) => applyBankNotification(deps, n),
  reread: rereadHint,
});
