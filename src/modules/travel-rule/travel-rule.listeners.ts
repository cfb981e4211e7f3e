/** Unhosted wallets: the transfer follows its ownership request (verified -> accepted; failed or expired -> rejected). */
import { eq } from 'drizzle-orm';
import { travelRuleTransfers } from '../../db/schema/travel-rule';
import { on } from '../../platform/module';
import { moveTransfer } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';

export const followOwnershipRequest = on(
  'screening.ownership_status_changed',
  async ({ request: r, at }, { tx }) => {
    const outcome =
      r.status === 'verified'
        ? { trigger: 'ownership_verified' as const, reason: TravelRuleMessages.ownershipVerified }
        : r.status === 'failed'
          ? { trigger: 'ownership_failed' as const, reason: TravelRuleMessages.ownershipFailed }
          : r.status === 'expired'
            ? { trigger: 'ownership_failed' as const, reason: TravelRuleMessages.ownershipExpired }
            : null;
    if (!outcome) return;
    const rows = await tx
      .select()
      .from(travelRuleTransfers)
      .where(eq(travelRuleTransfers.ownershipRequestId, r.id))
      .for('update');
    for (const t of rows)
      await moveTransfer(tx, t, outcome.trigger, { now: at, set: { statusReason: outcome.reason } });
  },
);
