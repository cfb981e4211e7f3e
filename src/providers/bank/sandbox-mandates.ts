/**
 * The sandbox bank's VRP mandates: an authorization page of its own (sandbox-mandate.routes.ts) and
 * mandate payments that settle by the cents of the amount after `settleSeconds`:
 * `.51` insufficient funds on attempt 1 then success, `.52` rejected, `.53` stays processing (until
 * POST /sandbox/transactions/{id}/simulate), `.54` insufficient funds every time, anything else completed.
 * Every outcome is a signed notification through the service's real route.
 */
import { and, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import {
  type MandateStatus,
  sandboxBankMandatePayments,
  sandboxBankMandates,
  sandboxBankSessions,
} from '../../db/schema/index';
import { addSeconds } from '../../shared/clock';
import { newId, randomToken } from '../../shared/ids';
import {
  type BankAttachContext,
  type BankChoice,
  BankProviderError,
  type CreateMandateInput,
  type MandateCode,
  type MandateNetwork,
  type MandatePaymentInput,
} from './port';

/** What the mandates use of the sandbox bank they belong to (simulator.ts builds them with itself). */
export interface SandboxBankCore {
  readonly context: BankAttachContext;
  listBanks(): Promise<BankChoice[]>;
  /** Sends a signed notification through the service's route. */
  notify(n: {
    refId: string;
    transferId: string | null;
    providerStatus: string;
    kind?: 'mandate';
  }): Promise<void>;
  simulate(refId: string, providerStatus: string): Promise<void>;
}

export interface SandboxMandateOptions {
  publicUrl: string;
  /** Mandate payments settle this long after they are initiated (default 2 seconds). */
  settleSeconds?: number;
}

export type SandboxMandateRow = typeof sandboxBankMandates.$inferSelect;

/** The sandbox bank keeps a mandate's periodic limit as the text `<amount> per <period>`. */
function storedLimit(limit: { amount: string; period: string }): string {
  return `${limit.amount} per ${limit.period}`;
}

/** The periodic limit of a stored mandate, back as amount and period. */
export function periodicLimitOf(m: SandboxMandateRow): { amount: string; period: string } {
  const [amount = m.periodicLimit, period = ''] = m.periodicLimit.split(' per ');
  return { amount, period };
}

/** The payer's choices on the mandate page and the code each makes the bank report. */
export const MANDATE_OUTCOMES = {
  authorize: { label: 'Authorize mandate', code: 'mandate_authorized', status: 'authorized' },
  reject: { label: 'Reject', code: 'mandate_rejected', status: 'rejected' },
  timeout: { label: 'Let it time out', code: 'mandate_expired', status: 'expired' },
} as const;
export type MandateOutcome = keyof typeof MANDATE_OUTCOMES;

const STATUS_OF: Record<MandateCode, MandateStatus> = {
  mandate_authorized: 'authorized',
  mandate_rejected: 'rejected',
  mandate_expired: 'expired',
  mandate_revoked: 'revoked',
};

/** The settlement code for a mandate payment (null: stays processing). */
export function mandatePaymentOutcome(amount: string, attemptNumber: number): string | null {
  const cents = amount.includes('.') ? amount.split('.')[1]!.padEnd(2, '0').slice(0, 2) : '00';
  switch (cents) {
    case '51':
      return attemptNumber === 1 ? 'rejected_insufficient_funds' : 'completed';
    case '52':
      return 'rejected';
    case '53':
      return null;
    case '54':
      return 'rejected_insufficient_funds';
    default:
      return 'completed';
  }
}

export class SandboxMandates implements MandateNetwork {
  constructor(
    private readonly bank: SandboxBankCore,
    private readonly opts: SandboxMandateOptions,
  ) {}

  private get db() {
    return this.bank.context.db;
  }
  private now(): Date {
    return this.bank.context.clock.now();
  }

  authorizationUrl(mandateRef: string): string {
    return `${this.opts.publicUrl}/sandbox-bank/mandates/${encodeURIComponent(mandateRef)}`;
  }

  async createMandate(input: CreateMandateInput): Promise<{ mandateRef: string; authorizationUrl: string }> {
    if (!(await this.bank.listBanks()).some((b) => b.id === input.bankId))
      throw new BankProviderError(`unknown bank ${input.bankId}`);
    const mandateRef = `mdt_${randomToken(16)}`;
    await this.db.insert(sandboxBankMandates).values({
      id: newId(),
      mandateRef,
      bankId: input.bankId,
      merchantName: input.merchantName,
      currency: input.currency,
      maxAmountPerPayment: input.maxAmountPerPayment,
      periodicLimit: storedLimit(input.periodicLimit),
      status: 'awaiting_authorization',
      returnUrl: input.returnUrl,
      expiresAt: input.expiresAt,
    });
    return { mandateRef, authorizationUrl: this.authorizationUrl(mandateRef) };
  }

  async find(mandateRef: string): Promise<SandboxMandateRow | null> {
    const [m] = await this.db
      .select()
      .from(sandboxBankMandates)
      .where(eq(sandboxBankMandates.mandateRef, mandateRef));
    return m ?? null;
  }

  isOpen(m: SandboxMandateRow): boolean {
    return m.status === 'awaiting_authorization' && m.expiresAt > this.now();
  }

  /** The payer's decision on the bank's mandate page. */
  async decide(
    mandateRef: string,
    outcome: MandateOutcome,
  ): Promise<{ returnUrl: string | null; applied: boolean }> {
    const m = await this.find(mandateRef);
    if (!m) throw new BankProviderError('unknown mandate');
    if (!this.isOpen(m)) return { returnUrl: m.returnUrl, applied: false };
    await this.simulateMandate(mandateRef, MANDATE_OUTCOMES[outcome].code);
    return { returnUrl: m.returnUrl, applied: true };
  }

  async simulateMandate(mandateRef: string, code: MandateCode): Promise<void> {
    const m = await this.find(mandateRef);
    if (!m) throw new BankProviderError('unknown mandate');
    await this.db
      .update(sandboxBankMandates)
      .set({ status: STATUS_OF[code], updatedAt: this.now() })
      .where(eq(sandboxBankMandates.mandateRef, mandateRef));
    await this.bank.notify({ refId: mandateRef, transferId: null, providerStatus: code, kind: 'mandate' });
  }

  async revokeMandate(mandateRef: string): Promise<void> {
    // Revoked by the merchant: the bank confirms nothing back (the service already moved).
    await this.db
      .update(sandboxBankMandates)
      .set({ status: 'revoked', updatedAt: this.now() })
      .where(eq(sandboxBankMandates.mandateRef, mandateRef));
  }

  /** Reports by notification (through the service's route), so it answers nothing. */
  async initiateMandatePayment(input: MandatePaymentInput): Promise<undefined> {
    const m = await this.find(input.mandateRef);
    if (!m) throw new BankProviderError('unknown mandate');
    const now = this.now();
    const inserted = await this.db
      .insert(sandboxBankMandatePayments)
      .values({
        id: newId(),
        refId: input.refId,
        mandateRef: input.mandateRef,
        attemptNumber: input.attemptNumber,
        outcome:
          m.status === 'authorized' ? mandatePaymentOutcome(input.amount, input.attemptNumber) : 'rejected',
        settleAt: addSeconds(now, this.opts.settleSeconds ?? 2),
      })
      .onConflictDoNothing()
      .returning();
    const [session] = await this.db
      .select()
      .from(sandboxBankSessions)
      .where(eq(sandboxBankSessions.refId, input.refId));
    if (!session) throw new BankProviderError('unknown session');
    if (inserted.length === 0 && session.providerStatus !== 'initiated') return undefined; // already under way
    if (inserted[0] && inserted[0].outcome === null)
      await this.db
        .update(sandboxBankMandatePayments)
        .set({ settleAt: null })
        .where(eq(sandboxBankMandatePayments.refId, input.refId));
    await this.db
      .update(sandboxBankSessions)
      .set({ providerStatus: 'processing', bankId: m.bankId, updatedAt: now })
      .where(eq(sandboxBankSessions.refId, input.refId));
    await this.bank.notify({ refId: input.refId, transferId: null, providerStatus: 'processing' });
    return undefined;
  }

  async settleDueMandatePayments(limit = 50): Promise<number> {
    const now = this.now();
    const claimed = await this.db.transaction(async (tx) => {
      const rows = await tx
        .select()
        .from(sandboxBankMandatePayments)
        .where(
          and(
            isNotNull(sandboxBankMandatePayments.settleAt),
            lte(sandboxBankMandatePayments.settleAt, now),
            // A crash between recording the payment and reporting it `processing` leaves the session
            // `initiated`: settling it then would skip `processing`; the relaunch reports it first.
            sql`exists (select 1 from sandbox_bank_sessions s
                         where s.ref_id = ${sandboxBankMandatePayments.refId} and s.provider_status <> 'initiated')`,
          ),
        )
        .orderBy(sandboxBankMandatePayments.settleAt)
        .limit(limit)
        .for('update', { skipLocked: true });
      if (rows.length > 0)
        await tx
          .update(sandboxBankMandatePayments)
          .set({ settleAt: addSeconds(now, 60) })
          .where(
            inArray(
              sandboxBankMandatePayments.id,
              rows.map((r) => r.id),
            ),
          );
      return rows;
    });
    for (const p of claimed) {
      // Like a real bank that re-delivers until acknowledged: `processing` again first, in case a crash
      // lost its first delivery (a pending payment cannot complete directly; a repeat changes nothing).
      await this.bank.notify({ refId: p.refId, transferId: null, providerStatus: 'processing' });
      if (p.outcome) await this.bank.simulate(p.refId, p.outcome);
      await this.db
        .update(sandboxBankMandatePayments)
        .set({ settleAt: null })
        .where(eq(sandboxBankMandatePayments.id, p.id));
    }
    return claimed.length;
  }
}
