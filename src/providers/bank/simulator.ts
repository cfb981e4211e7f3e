/**
 * The sandbox bank: a deterministic payment-network simulator behind the BankProvider port.
 * It keeps its sessions in its own table, serves its own authorization page (simulator.routes.ts)
 * and reports outcomes as HMAC-signed notifications POSTed through the service's real
 * `/api/v1/providers/bank/notifications` route, so signature verification is always exercised.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { ASYNC_COMMIT } from '../../db/hot';
import { sandboxBankSessions } from '../../db/schema/index';
import { addSeconds, type Clock } from '../../shared/clock';
import { newId, randomToken } from '../../shared/ids';
import {
  BANK_SIGNATURE_HEADER,
  type BankAttachContext,
  type BankChoice,
  type BankFilter,
  type BankNotification,
  type BankProvider,
  BankProviderError,
  type BankSession,
  type CreateSessionInput,
  type SessionRef,
  type StartAuthorizationInput,
  type StartedAuthorization,
} from './port';
import { SandboxMandates } from './sandbox-mandates';
import { SandboxRefunds } from './sandbox-refunds';
import { signBankPayload, verifyBankSignature } from './signature';

/** The sandbox banks take every currency of payment (no `currencies`), so any currency can be tried. */
export const SANDBOX_BANKS: BankChoice[] = [
  { id: 'sandbox-bank', name: 'Sandbox Bank', description: 'Retail bank, instant payments' },
  { id: 'northwind-bank', name: 'Northwind Bank', description: 'Business and personal accounts' },
  { id: 'harbor-credit-union', name: 'Harbor Credit Union', description: 'Member-owned credit union' },
];

/** What the payer can do on the sandbox bank's authorization page, and the codes the network then reports. */
export const SANDBOX_OUTCOMES = {
  approve: { label: 'Approve payment', codes: ['authorized', 'completed'] },
  reject: { label: 'Reject payment', codes: ['rejected'] },
  insufficient_funds: { label: 'Reject: insufficient funds', codes: ['rejected_insufficient_funds'] },
  timeout: { label: 'Let authorization time out', codes: ['expired'] },
  cancel: { label: 'Cancel and return to merchant', codes: ['canceled'] },
} as const;
export type SandboxOutcome = keyof typeof SANDBOX_OUTCOMES;

// On every payment creation's path; committed asynchronously (ASYNC_COMMIT), like the idempotency
// claim before it: the payment's synchronous commit that follows flushes it too.
const INSERT_SESSION = `insert into sandbox_bank_sessions
    (id, ref_id, transaction_id, amount, currency, merchant_name, provider_status, expires_at, created_at, updated_at)
  select $1::uuid, $2, $3::uuid, $4, $5, $6, 'initiated', $7::timestamptz, now(), now() from ${ASYNC_COMMIT} as async`;

export type SandboxSessionRow = typeof sandboxBankSessions.$inferSelect;

export interface SandboxBankOptions {
  secret: string;
  publicUrl: string;
  /** Authorization window once the payer picked a bank. */
  sessionTtlSeconds: number;
  /** Mandate payments settle this long after they are initiated (SVC_SANDBOX_BANK_SETTLE_SECONDS). */
  settleSeconds?: number;
  /** Refunds settle this long after they are initiated (SVC_SANDBOX_REFUND_SETTLE_SECONDS). */
  refundSettleSeconds?: number;
}

export class SandboxBank implements BankProvider {
  readonly name = 'sandbox';
  private ctx: BankAttachContext | null = null;
  readonly mandates: SandboxMandates;
  readonly refunds: SandboxRefunds;

  constructor(private readonly opts: SandboxBankOptions) {
    this.mandates = new SandboxMandates(this, opts);
    this.refunds = new SandboxRefunds(this, { settleSeconds: opts.refundSettleSeconds });
  }

  /** The attached service context (database, clock, delivery). */
  get context(): BankAttachContext {
    if (!this.ctx) throw new BankProviderError('sandbox bank is not attached to the service');
    return this.ctx;
  }

  attach(ctx: BankAttachContext): void {
    this.ctx = ctx;
  }

  private get db(): Db {
    if (!this.ctx) throw new BankProviderError('sandbox bank is not attached to the service');
    return this.ctx.db;
  }

  private get clock(): Clock {
    if (!this.ctx) throw new BankProviderError('sandbox bank is not attached to the service');
    return this.ctx.clock;
  }

  async listBanks(filter: BankFilter = {}): Promise<BankChoice[]> {
    const q = filter.search?.trim().toLowerCase();
    return q ? SANDBOX_BANKS.filter((b) => b.name.toLowerCase().includes(q)) : SANDBOX_BANKS;
  }

  authorizationUrl(transferId: string): string {
    return `${this.opts.publicUrl}/sandbox-bank/authorize/${encodeURIComponent(transferId)}`;
  }

  async createSession(input: CreateSessionInput): Promise<{ refId: string }> {
    if (!this.ctx) throw new BankProviderError('sandbox bank is not attached to the service');
    const refId = `ref_${randomToken(12)}`;
    await this.ctx.database.query('sandbox_bank_session_insert', INSERT_SESSION, [
      newId(),
      refId,
      input.transactionId,
      input.amount,
      input.currency,
      input.merchantName,
      input.expiresAt.toISOString(),
    ]);
    return { refId };
  }

  async startAuthorization(input: StartAuthorizationInput): Promise<StartedAuthorization> {
    if (!SANDBOX_BANKS.some((b) => b.id === input.bankId))
      throw new BankProviderError(`unknown bank ${input.bankId}`);
    const session = await this.findByRef(input.refId);
    if (!session) throw new BankProviderError('unknown session');
    const now = this.clock.now();
    if (session.expiresAt <= now) throw new BankProviderError('session expired');
    const transferId = `trf_${randomToken(16)}`;
    const windowEnd = addSeconds(now, this.opts.sessionTtlSeconds);
    await this.db
      .update(sandboxBankSessions)
      .set({
        bankId: input.bankId,
        transferId,
        returnUrl: input.returnUrl,
        providerStatus: 'awaiting_bank_authorization',
        expiresAt: new Date(Math.min(windowEnd.getTime(), session.expiresAt.getTime())),
        updatedAt: now,
      })
      .where(eq(sandboxBankSessions.refId, input.refId));
    // The network acknowledges the session: the payer is now authenticating with the bank.
    await this.notify({ refId: input.refId, transferId, providerStatus: 'awaiting_bank_authorization' });
    return { transferId, authorizationUrl: this.authorizationUrl(transferId) };
  }

  async getSession({ refId }: SessionRef): Promise<BankSession | null> {
    const s = await this.findByRef(refId);
    if (!s) return null;
    return {
      refId: s.refId,
      transferId: s.transferId,
      providerStatus: s.providerStatus,
      expired: s.expiresAt <= this.clock.now() && !isFinalCode(s.providerStatus),
      authorizationUrl: s.transferId ? this.authorizationUrl(s.transferId) : null,
      updatedAt: s.updatedAt,
    };
  }

  async cancelSession(refId: string): Promise<void> {
    await this.db
      .update(sandboxBankSessions)
      .set({ providerStatus: 'canceled', updatedAt: this.clock.now() })
      .where(eq(sandboxBankSessions.refId, refId));
  }

  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): BankNotification | null {
    const h = headers[BANK_SIGNATURE_HEADER];
    if (!verifyBankSignature(this.opts.secret, rawBody, Array.isArray(h) ? h[0] : h, this.clock.now()))
      return null;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return null;
    }
    if (
      body === null ||
      typeof body !== 'object' ||
      typeof body.ref_id !== 'string' ||
      typeof body.provider_status !== 'string' ||
      typeof body.event_id !== 'string'
    )
      return null;
    const occurred = typeof body.occurred_at === 'string' ? new Date(body.occurred_at) : this.clock.now();
    return {
      eventId: body.event_id,
      refId: body.ref_id,
      transferId: typeof body.transfer_id === 'string' ? body.transfer_id : null,
      providerStatus: body.provider_status,
      occurredAt: Number.isNaN(occurred.getTime()) ? this.clock.now() : occurred,
      reason: typeof body.reason === 'string' ? body.reason : null,
      kind: body.kind === 'mandate' || body.kind === 'refund' ? body.kind : 'payment',
    };
  }

  async simulate(refId: string, providerStatus: string): Promise<void> {
    const s = await this.findByRef(refId);
    if (!s) throw new BankProviderError('unknown session');
    await this.db
      .update(sandboxBankSessions)
      .set({ providerStatus, updatedAt: this.clock.now() })
      .where(eq(sandboxBankSessions.refId, refId));
    await this.notify({ refId, transferId: s.transferId, providerStatus });
  }

  // ---- the bank's own authorization page (simulator.routes.ts) ----

  async findByTransfer(transferId: string): Promise<SandboxSessionRow | null> {
    const [s] = await this.db
      .select()
      .from(sandboxBankSessions)
      .where(eq(sandboxBankSessions.transferId, transferId));
    return s ?? null;
  }

  isSessionOpen(s: SandboxSessionRow): boolean {
    return s.providerStatus === 'awaiting_bank_authorization' && s.expiresAt > this.clock.now();
  }

  /** The payer's decision on the authorization page; returns where to send the payer next. */
  async authorize(
    transferId: string,
    outcome: SandboxOutcome,
  ): Promise<{ returnUrl: string | null; applied: boolean }> {
    const s = await this.findByTransfer(transferId);
    if (!s) throw new BankProviderError('unknown session');
    if (!this.isSessionOpen(s)) return { returnUrl: s.returnUrl, applied: false };
    const codes = SANDBOX_OUTCOMES[outcome].codes;
    await this.db
      .update(sandboxBankSessions)
      .set({ providerStatus: codes[codes.length - 1]!, updatedAt: this.clock.now() })
      .where(eq(sandboxBankSessions.transferId, transferId));
    for (const code of codes) await this.notify({ refId: s.refId, transferId, providerStatus: code });
    return { returnUrl: s.returnUrl, applied: true };
  }

  private async findByRef(refId: string): Promise<SandboxSessionRow | null> {
    const [s] = await this.db.select().from(sandboxBankSessions).where(eq(sandboxBankSessions.refId, refId));
    return s ?? null;
  }

  /** Sends a signed notification through the service's route (also used by the sandbox mandates). */
  async notify(n: {
    refId: string;
    transferId: string | null;
    providerStatus: string;
    kind?: 'payment' | 'mandate' | 'refund';
  }): Promise<void> {
    if (!this.ctx) throw new BankProviderError('sandbox bank is not attached to the service');
    const now = this.clock.now();
    const rawBody = JSON.stringify({
      event_id: newId(),
      ref_id: n.refId,
      transfer_id: n.transferId,
      provider_status: n.providerStatus,
      occurred_at: now.toISOString(),
      ...(n.kind === 'mandate' || n.kind === 'refund' ? { kind: n.kind } : {}),
    });
    const res = await this.ctx.deliver(rawBody, {
      'content-type': 'application/json',
      [BANK_SIGNATURE_HEADER]: signBankPayload(this.opts.secret, rawBody, now),
    });
    if (res.statusCode >= 300) {
      // A real network retries; the payment is still reconciled by POST refresh-status polling.
      throw new BankProviderError(`notification rejected with ${res.statusCode}: ${res.body.slice(0, 200)}`);
    }
  }
}

const FINAL_CODES = new Set([
  'completed',
  'settled',
  'rejected',
  'rejected_insufficient_funds',
  'failed',
  'expired',
  'canceled',
  'declined',
]);
function isFinalCode(code: string): boolean {
  return FINAL_CODES.has(code);
}
