/**
 * The sandbox bank's refunds: recorded at `initiateRefund` (processing), settled after
 * `settleSeconds` by the cents of the amount, and reported as signed `kind: "refund"`
 * notifications through the service's real route (the same path as a real network's):
 * `.52` refused at once (the payer's account is closed), `.53` stays processing until
 * POST /sandbox/refunds/{id}/simulate, `.54` fails at settlement (returned by the payer's bank),
 * anything else succeeds. Idempotent per refund id, like a real network's reference.
 */
import { and, eq, inArray, isNotNull, lte } from 'drizzle-orm';
import { sandboxBankRefunds, sandboxBankSessions } from '../../db/schema/index';
import { addSeconds } from '../../shared/clock';
import { newId, randomToken } from '../../shared/ids';
import {
  type BankAttachContext,
  BankProviderError,
  BankRefusedError,
  type RefundInput,
  type RefundNetwork,
  type RefundOutcome,
  type RefundRead,
} from './port';

/** What the refunds use of the sandbox bank they belong to (simulator.ts builds them with itself). */
export interface SandboxRefundBank {
  readonly context: BankAttachContext;
  notify(n: {
    refId: string;
    transferId: string | null;
    providerStatus: string;
    kind: 'refund';
  }): Promise<void>;
}

export const SANDBOX_REFUND_REFUSED_REASON = "The payer's bank account is closed; the refund was refused";
export const SANDBOX_REFUND_RETURNED_REASON = "The payer's bank returned the refund";

type Row = typeof sandboxBankRefunds.$inferSelect;

/** The magic cents of a refund amount: what the sandbox network does with it. */
export function sandboxRefundBehaviour(amount: string): 'refuse' | 'hold' | 'fail' | 'succeed' {
  const cents = amount.includes('.') ? amount.split('.')[1]!.padEnd(2, '0').slice(0, 2) : '00';
  switch (cents) {
    case '52':
      return 'refuse';
    case '53':
      return 'hold';
    case '54':
      return 'fail';
    default:
      return 'succeed';
  }
}

export class SandboxRefunds implements RefundNetwork {
  constructor(
    private readonly bank: SandboxRefundBank,
    private readonly opts: { settleSeconds?: number },
  ) {}

  private get db() {
    return this.bank.context.db;
  }
  private now(): Date {
    return this.bank.context.clock.now();
  }

  async refundProblem(payment: { transactionId: string }): Promise<string | null> {
    const [s] = await this.db
      .select({ id: sandboxBankSessions.id })
      .from(sandboxBankSessions)
      .where(eq(sandboxBankSessions.transactionId, payment.transactionId))
      .limit(1);
    return s ? null : 'The sandbox bank has no record of this payment, so it cannot refund it';
  }

  private async find(refundId: string): Promise<Row | null> {
    const [r] = await this.db
      .select()
      .from(sandboxBankRefunds)
      .where(eq(sandboxBankRefunds.refundId, refundId));
    return r ?? null;
  }

  private read(r: Row): RefundRead {
    return {
      networkRefundId: r.networkRefundId,
      outcome: r.status,
      providerStatus: r.status,
      reason: r.status === 'failed' ? r.reason : null,
    };
  }

  async initiateRefund(input: RefundInput): Promise<RefundRead> {
    const behaviour = sandboxRefundBehaviour(input.amount);
    if (behaviour === 'refuse') throw new BankRefusedError(SANDBOX_REFUND_REFUSED_REASON);
    const now = this.now();
    await this.db
      .insert(sandboxBankRefunds)
      .values({
        id: newId(),
        refundId: input.refundId,
        networkRefundId: `rfd_${randomToken(12)}`,
        originalTransferId: input.originalTransferId,
        amount: input.amount,
        currency: input.currency,
        status: 'processing',
        outcome: behaviour === 'hold' ? null : behaviour === 'fail' ? 'failed' : 'succeeded',
        reason: behaviour === 'fail' ? SANDBOX_REFUND_RETURNED_REASON : null,
        settleAt: behaviour === 'hold' ? null : addSeconds(now, this.opts.settleSeconds ?? 5),
      })
      .onConflictDoNothing(); // the same refund id again (a lost answer): the one already recorded
    const r = await this.find(input.refundId);
    if (!r) throw new BankProviderError('sandbox refund vanished');
    return this.read(r);
  }

  async getRefund(ref: { refundId: string }): Promise<RefundRead | null> {
    const r = await this.find(ref.refundId);
    return r ? this.read(r) : null;
  }

  async simulateRefund(refundId: string, outcome: RefundOutcome): Promise<void> {
    const r = await this.find(refundId);
    if (!r) throw new BankProviderError('unknown refund');
    await this.db
      .update(sandboxBankRefunds)
      .set({
        status: outcome,
        reason: outcome === 'failed' ? (r.reason ?? SANDBOX_REFUND_RETURNED_REASON) : null,
        settleAt: null,
        updatedAt: this.now(),
      })
      .where(eq(sandboxBankRefunds.refundId, refundId));
    await this.bank.notify({ refId: refundId, transferId: null, providerStatus: outcome, kind: 'refund' });
  }

  /** Settles the refunds whose settlement time has come (the sandbox providers' sweep); returns how many. */
  async settleDue(limit = 50): Promise<number> {
    const now = this.now();
    const claimed = await this.db.transaction(async (tx) => {
      const rows = await tx
        .select()
        .from(sandboxBankRefunds)
        .where(and(isNotNull(sandboxBankRefunds.settleAt), lte(sandboxBankRefunds.settleAt, now)))
        .orderBy(sandboxBankRefunds.settleAt)
        .limit(limit)
        .for('update', { skipLocked: true });
      if (rows.length > 0)
        await tx
          .update(sandboxBankRefunds)
          .set({ settleAt: addSeconds(now, 60) }) // a crash before the report: tried again in a minute
          .where(
            inArray(
              sandboxBankRefunds.id,
              rows.map((r) => r.id),
            ),
          );
      return rows;
    });
    for (const r of claimed) {
      const outcome: RefundOutcome = r.outcome ?? 'succeeded';
      await this.db
        .update(sandboxBankRefunds)
        .set({ status: outcome, settleAt: null, updatedAt: now })
        .where(eq(sandboxBankRefunds.id, r.id));
      await this.bank.notify({
        refId: r.refundId,
        transferId: null,
        providerStatus: outcome,
        kind: 'refund',
      });
    }
    return claimed.length;
  }
}
