/**
 * The deterministic sandbox screening provider (docs/guides/screening.md). It decides by the last
 * 4 characters of the address (`3333` by whether the wallet was screened before) and delivers every
 * asynchronous result through the signed inbound route, so the production code path runs; a delayed
 * result is a timer job (src/providers/sandbox-deliveries.ts) run by the jobs runner.
 */
import { and, count, eq, ne } from 'drizzle-orm';
import { walletScreenings } from '../../db/schema/screening';
import { derivedAddress } from '../../shared/chain-addresses';
import { newId } from '../../shared/ids';
import { SANDBOX_SCREENING_DELIVERY, scheduleSandboxDelivery } from '../sandbox-deliveries';
import { signProviderPayload, verifyProviderSignature } from '../signature';
import {
  type DepositWatchRequest,
  type RiskCategory,
  type RiskLevel,
  SCREENING_SIGNATURE_HEADER,
  type ScreeningAttachContext,
  type ScreeningNotification,
  type ScreeningProvider,
  ScreeningProviderError,
  type ScreeningSandbox,
  type ScreenOutcome,
  type ScreenRequest,
  type WalletRisk,
} from './port';

const SCORE: Record<RiskLevel, number> = { unknown: 0, low: 5, medium: 45, high: 72, severe: 95 };

/** A normalized risk of `level`; a sanctions hit is always severe. */
export function sandboxRisk(
  level: RiskLevel,
  opts: { sanctionsHit?: boolean; categories?: RiskCategory[] } = {},
): WalletRisk {
  const sanctions = opts.sanctionsHit === true;
  const effective: RiskLevel = sanctions ? 'severe' : level;
  const categories = [
    ...new Set([...(sanctions ? (['sanctions'] as RiskCategory[]) : []), ...(opts.categories ?? [])]),
  ];
  return {
    risk_level: effective,
    risk_score: sanctions ? 100 : SCORE[effective],
    sanctions_hit: sanctions,
    categories,
    exposures: categories.map((category) => ({
      category,
      direction: 'incoming',
      exposure_type: 'direct',
      percentage: 100,
      amount_usd: null,
    })),
    cluster: null,
    risk_reasons: categories.map((c) => `Exposure to ${c.replace(/_/g, ' ')}`),
  };
}

/** The fixed behaviour by address suffix; `repeat` is true when the provider saw this wallet before. */
export function decideBySuffix(address: string, repeat: boolean): ScreenOutcome | 'async' {
  const suffix = address.slice(-4).toLowerCase();
  switch (suffix) {
    case '9999':
      return {
        status: 'completed',
        risk: {
          risk_level: 'severe',
          risk_score: 100,
          sanctions_hit: true,
          categories: ['sanctions'],
          exposures: [
            {
              category: 'sanctions',
              direction: 'incoming',
              exposure_type: 'direct',
              percentage: 100,
              amount_usd: '25000.00',
            },
          ],
          cluster: { name: 'Sanctioned entity', category: 'sanctions' },
          risk_reasons: ['Address is on a sanctions list'],
        },
      };
    case '8888':
      return {
        status: 'completed',
        risk: {
          risk_level: 'high',
          risk_score: 72,
          sanctions_hit: false,
          categories: ['mixer'],
          exposures: [
            {
              category: 'mixer',
              direction: 'incoming',
              exposure_type: 'indirect',
              percentage: 35,
              amount_usd: '3500.00',
            },
          ],
          cluster: null,
          risk_reasons: ['Indirect exposure to a mixer (35%)'],
        },
      };
    case '7777':
      return { status: 'completed', risk: sandboxRisk('medium', { categories: ['gambling'] }) };
    case '6666':
      return { status: 'completed', risk: sandboxRisk('unknown') };
    case '5555':
      return 'async';
    case '4444':
      return { status: 'failed', reason: 'Screening provider error' };
    case '3333':
      return {
        status: 'completed',
        risk: repeat ? sandboxRisk('high', { categories: ['scam'] }) : sandboxRisk('low'),
      };
    default:
      return { status: 'completed', risk: sandboxRisk('low') };
  }
}

export interface SandboxScreeningOptions {
  secret: string;
  delaySeconds: number;
}

export class SandboxScreeningProvider implements ScreeningProvider, ScreeningSandbox {
  /** The simulator is its own sandbox capability. */
  get sandbox(): ScreeningSandbox {
    return this;
  }
  readonly configured = true;
  private ctx: ScreeningAttachContext | null = null;
  constructor(private readonly opts: SandboxScreeningOptions) {}

  attach(ctx: ScreeningAttachContext): void {
    this.ctx = ctx;
  }

  private get c(): ScreeningAttachContext {
    if (!this.ctx) throw new ScreeningProviderError('sandbox screening provider is not attached');
    return this.ctx;
  }

  async screenWallet(req: ScreenRequest): Promise<ScreenOutcome> {
    const { db, clock } = this.c;
    // The provider has seen the wallet before when the service screened it before (each screening
    // is one request to the provider).
    const [seen] = await db
      .select({ n: count() })
      .from(walletScreenings)
      .where(and(eq(walletScreenings.walletId, req.walletId), ne(walletScreenings.id, req.screeningId)));
    const decision = decideBySuffix(req.address, (seen?.n ?? 0) > 0);
    if (decision !== 'async') return decision;
    await scheduleSandboxDelivery(db, clock, SANDBOX_SCREENING_DELIVERY, {
      subject: req.screeningId,
      body: {
        type: 'screening.result',
        reference: req.screeningId,
        revision: 1,
        status: 'completed',
        risk: sandboxRisk('low'),
      },
      dueAt: new Date(clock.now().getTime() + this.opts.delaySeconds * 1000),
    });
    return { status: 'pending' };
  }

  async watchDeposit(req: DepositWatchRequest): Promise<{ depositAddress: string }> {
    return { depositAddress: derivedAddress(req.chain as never, `sandbox-deposit:${req.chain}`) };
  }

  /** Sandbox simulate endpoint: the pending screening gets this result, through the signed route. */
  async simulateScreening(screeningId: string, outcome: Exclude<ScreenOutcome, { status: 'pending' }>) {
    const body =
      outcome.status === 'completed'
        ? { status: 'completed', risk: outcome.risk }
        : { status: 'failed', failure_reason: outcome.reason };
    await this.send({ type: 'screening.result', reference: screeningId, revision: 2, ...body });
  }

  /** The chain observer saw a deposit (the proof page's "I sent it", or the simulate endpoint). */
  async simulateDeposit(
    requestId: string,
    deposit: { from_address: string; to_address: string; amount: string; asset: string },
  ) {
    await this.send({ type: 'deposit.observed', reference: requestId, revision: 1, deposit });
  }

  async deliverScheduled(body: Record<string, unknown>): Promise<void> {
    await this.send(body);
  }

  private async send(payload: Record<string, unknown>) {
    const now = this.c.clock.now();
    const raw = JSON.stringify({ event_id: newId(), occurred_at: now.toISOString(), ...payload });
    const res = await this.c.deliver(raw, {
      'content-type': 'application/json',
      [SCREENING_SIGNATURE_HEADER.toLowerCase()]: signProviderPayload(this.opts.secret, raw, now),
    });
    if (res.statusCode >= 300)
      throw new ScreeningProviderError(`screening notification was refused (${res.statusCode}): ${res.body}`);
  }

  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): ScreeningNotification | null {
    const header = headers[SCREENING_SIGNATURE_HEADER.toLowerCase()];
    if (typeof header !== 'string') return null;
    if (!verifyProviderSignature(this.opts.secret, rawBody, header, this.c.clock.now())) return null;
    return parseScreeningNotification(rawBody);
  }
}

/** Parses a (verified) notification body; null when it is not one the service understands. */
export function parseScreeningNotification(rawBody: string): ScreeningNotification | null {
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(rawBody) as Record<string, unknown>;
  } catch {
    return null;
  }
  const eventId = typeof b.event_id === 'string' ? b.event_id : null;
  const reference = typeof b.reference === 'string' ? b.reference : null;
  const revision = typeof b.revision === 'number' && Number.isInteger(b.revision) ? b.revision : null;
  if (!eventId || !reference || revision === null) return null;
  if (b.type === 'screening.result') {
    if (b.status === 'completed' && b.risk && typeof b.risk === 'object')
      return {
        type: 'screening.result',
        eventId,
        reference,
        revision,
        outcome: { status: 'completed', risk: b.risk as WalletRisk },
      };
    if (b.status === 'failed')
      return {
        type: 'screening.result',
        eventId,
        reference,
        revision,
        outcome: { status: 'failed', reason: String(b.failure_reason ?? 'Screening provider error') },
      };
    return null;
  }
  if (b.type === 'deposit.observed' && b.deposit && typeof b.deposit === 'object') {
    const d = b.deposit as Record<string, unknown>;
    return {
      type: 'deposit.observed',
      eventId,
      reference,
      revision,
      deposit: {
        from_address: String(d.from_address ?? ''),
        to_address: String(d.to_address ?? ''),
        amount: String(d.amount ?? ''),
        asset: String(d.asset ?? ''),
      },
    };
  }
  return null;
}
