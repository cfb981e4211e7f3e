/**
 * Retention of the payer's refund account (GDPR: for the account a bank shares with
 * `returnRefundAccount` we are the data controller, Token.io only a processor —
 * https://docs.token.io/products/tpp/integration-considerations/user-consent-collection). The sealed
 * account is erased SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS after the payment was created; a later
 * refund of that payment goes by bank transfer. Runs as a periodic sweep (payments manifest), in
 * batches, across clients (a system task: no client scope), on the partial index of sealed accounts.
 */
import { and, inArray, isNotNull, lt } from 'drizzle-orm';
import { transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';

/** Erases the sealed refund accounts of payments older than `retentionDays`; returns how many. */
export async function eraseLapsedRefundAccounts(
  deps: Pick<Deps, 'db' | 'clock'>,
  retentionDays: number,
  batch = 500,
): Promise<number> {
  const cutoff = addSeconds(deps.clock.now(), -retentionDays * 86_400);
  const due = deps.db
    .select({ id: transactions.id })
    .from(transactions)
    .where(and(isNotNull(transactions.refundAccountEnc), lt(transactions.createdAt, cutoff)))
    .limit(batch);
  const erased = await deps.db
    .update(transactions)
    .set({ refundAccountEnc: null })
    .where(and(inArray(transactions.id, due), isNotNull(transactions.refundAccountEnc)))
    .returning({ id: transactions.id });
  return erased.length;
}
