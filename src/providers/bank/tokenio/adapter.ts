/**
 * The Token.io payment network behind the BankProvider port. A payment link makes no network call
 * (the ref_id is ours, generated here); choosing a bank creates the Token.io payment
 * (POST /v2/payments, on behalf of the opco's Sub-TPP, our return page as callback) and sends the
 * payer to the bank. Statuses are read with GET /v2/payments: the return page, inbound hints and the
 * reconciliation worker all read rather than trust a notification (docs/vendors/tokenio.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import { safeEqual } from '../../../shared/crypto';
import type { InboundCapability } from '../../capabilities';
import {
  type BankAttachContext,
  type BankChoice,
  type BankFilter,
  type BankHint,
  type BankNotification,
  type BankProvider,
  BankProviderError,
  type BankReconcile,
  BankRefusedError,
  type BankSession,
  type ConsentNotice,
  type CreateSessionInput,
  type Payee,
  type SessionRef,
  type StartAuthorizationInput,
  type StartedAuthorization,
} from '../port';
import { cleanTraceId, type TokenioBankV2, type TokenioClient, type TokenioPayment } from './client';
import { type TokenioConfig, tokenioWebhookUrl } from './config';
import { creditorFor, currenciesOf, railAt } from './creditor';
import { TokenioMandates } from './mandates';
import { awaitsPayer, providerStatusOf } from './mapping';
import { newRefId } from './ref-id';
import { refundAccountOf, TokenioRefunds } from './refunds';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * What an inbound Token.io notification names (its status is never used: it is only a hint). A
 * refund's hint (REFUND_STATUS_CHANGED) carries the refund's refId as `refId` (refunds.ts).
 */
export type TokenioHint = BankHint;

/**
 * What a notification names. Payments come as `payment` (webhooks page: "similar" to
 * GET /v2/payments/{id}); the VRP bodies are not shown in Token.io's documentation, so the roots
 * of the reference's own VRP objects are accepted too: `vrp` (schema `Vrp`, the answer of
 * GET /vrp-consents/{id}/payments) and `vrpConsent` (schema `VrpConsent`). A VRP payment that
 * names only its consent is a hint for the consent. `keys` are the body's top-level keys (never
 * values), for the log when it names nothing.
 */
export function parseHint(rawBody: string): TokenioHint | { keys: string[] } | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  type Named = { id?: unknown; initiation?: { refId?: unknown; vrpConsentId?: unknown } };
  const b = body as { payment?: Named; vrp?: Named; vrpConsent?: { id?: unknown }; refund?: Named };
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null);
  // A refund (reference `Refund`, the object GET /refunds/{id} answers): a hint to read it again.
  const refundId = str(b.refund?.id);
  if (refundId)
    return { paymentId: null, refId: str(b.refund?.initiation?.refId), consentId: null, refundId };
  const pay = b.payment ?? b.vrp;
  const paymentId = str(pay?.id);
  const consentId = str(b.vrpConsent?.id) ?? (paymentId ? null : str(pay?.initiation?.vrpConsentId));
  if (paymentId || consentId) return { paymentId, refId: str(pay?.initiation?.refId), consentId };
  return {
    keys: Object.keys(body)
      .slice(0, 20)
      .map((k) => k.slice(0, 40)),
  };
}

export const isHint = (h: ReturnType<typeof parseHint>): h is TokenioHint => !!h && !('keys' in h);

function secondaryRemittance(ref: string | null | undefined): { remittanceInformationSecondary?: string } {
  const clean = (ref ?? '')
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9 -]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 140)
    .trim();
  return clean ? { remittanceInformationSecondary: clean } : {};
}

/**
 * `risk` of a single payment [REF `Risk`]: `psuId`, "the merchant's unique customer identifier for
 * the user" (ours is pseudonymous: a keyed hash, never a name or an email), and
 * `paymentContextCode` (SVC_TOKENIO_PAYMENT_CONTEXT_CODE). Absent when both are.
 */
export function riskOf(psuId: string | null, paymentContextCode: string | null) {
  const risk = {
    ...(psuId ? { psuId } : {}),
    ...(paymentContextCode ? { paymentContextCode } : {}),
  };
  return Object.keys(risk).length ? { risk } : {};
}

export interface TokenioBankOptions {
  config: TokenioConfig;
  publicUrl: string;
  client: TokenioClient;
  log: FastifyBaseLogger;
}

export class TokenioBank implements BankProvider {
  readonly name = 'tokenio';
  readonly mandates: TokenioMandates;
  /** Absent unless SVC_TOKENIO_REFUNDS_ENABLED (the API then answers that refunds are not available). */
  readonly refunds?: TokenioRefunds;
  private banks: { at: number; list: TokenioBankV2[] } | null = null;
  private banksLoading: Promise<TokenioBankV2[]> | null = null;

  /**
   * Token.io signs nothing: a notification is a hint, accepted only on a URL ending in the random
   * SVC_TOKENIO_WEBHOOK_PATH_SECRET (a wrong one is 404), and the objects it names are read again.
   */
  readonly inbound: InboundCapability<BankNotification, BankHint> = {
    aliases: [
      {
        path: '/providers/tokenio/webhook/:secret',
        summary: 'Token.io notification (a hint: the payment is read from Token.io before anything changes)',
      },
    ],
    parse: (req) => {
      if (!safeEqual(req.pathSecret ?? '', this.opts.config.webhookPathSecret))
        return { type: 'refused', status: 404 };
      const hint = parseHint(req.rawBody);
      if (!hint) return { type: 'ignored' };
      return 'keys' in hint ? { type: 'ignored', keys: hint.keys } : { type: 'hint', hint };
    },
  };
  /** Token.io says a final status can take time and notifications can be missed: the sweep reads. */
  readonly reconcile: BankReconcile;
  /** Commercial VRP is off until the deployment enables it (SVC_TOKENIO_VRP_ENABLED). */
  readonly mandatesEnabled: boolean;
  /** SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS. */
  readonly refundAccountRetentionDays: number;

  constructor(readonly opts: TokenioBankOptions) {
    const c = opts.config;
    this.reconcile = {
      pollMs: c.reconcile.pollMs,
      payments: {
        afterSeconds: c.reconcile.afterSeconds,
        intervalSeconds: c.reconcile.intervalSeconds,
        maxIntervalSeconds: c.reconcile.maxIntervalSeconds,
      },
      review: c.review,
      consentRereadSeconds: c.consentRereadSeconds,
      subTppRereadSeconds: c.subTppRereadSeconds,
      subTppPollSeconds: c.subTppPollSeconds,
      // SVC_TOKENIO_REGISTER_WEBHOOK: PUT /webhook/config with our URL once, at the sweep's first pass.
      ...(c.registerWebhook
        ? {
            start: async () => {
              await this.registerWebhook(tokenioWebhookUrl(opts.publicUrl, c));
              opts.log.info('Token.io webhook URL registered');
            },
          }
        : {}),
    };
    this.mandatesEnabled = c.vrp.enabled;
    this.refundAccountRetentionDays = c.refunds.retentionDays;
    this.mandates = new TokenioMandates(
      opts.client,
      opts.publicUrl,
      opts.config.redirectWaitMs,
      opts.config.vrp,
    );
    if (opts.config.refunds.enabled) this.refunds = new TokenioRefunds(opts.client);
  }

  get client(): TokenioClient {
    return this.opts.client;
  }

  attach(_ctx: BankAttachContext): void {}

  /**
   * Token.io's consent sentence and Terms link, when our pages collect consent (SVC_TOKENIO_CONSENT=ours).
   * For a payment (not a mandate) with SVC_TOKENIO_RETURN_REFUND_ACCOUNT on, also Token.io's amended
   * variant and our privacy notice: the page shows it only for banks that are asked for the account
   * (BankChoice `asksRefundAccount`).
   */
  consentNotice(beneficiary: string, purpose: 'payment' | 'mandate' = 'payment'): ConsentNotice | null {
    const c = this.opts.config.consent;
    if (c.collect !== 'ours') return null;
    const r = this.opts.config.refunds;
    return {
      text: c.text.replaceAll('{beneficiary}', beneficiary),
      termsUrl: c.termsUrl ?? 'https://token.io',
      termsLead: c.termsLead,
      termsLabel: 'Terms & Conditions',
      ...(purpose === 'payment' && r.returnRefundAccount
        ? {
            refundAccount: {
              text: r.consentText.replaceAll('{beneficiary}', beneficiary),
              termsLead: r.termsLead,
              privacyNoticeUrl: r.privacyNoticeUrl,
            },
          }
        : {}),
    };
  }

  /** Token.io's banks, fetched at most once per SVC_TOKENIO_BANKS_CACHE_SECONDS (Token.io asks for a daily, cached fetch). */
  private async allBanks(): Promise<TokenioBankV2[]> {
    const fresh = this.banks && Date.now() - this.banks.at < this.opts.config.banksCacheSeconds * 1000;
    if (this.banks && fresh) return this.banks.list;
    this.banksLoading ??= this.opts.client
      .listBanks({
        countries: this.opts.config.bankCountries.length ? this.opts.config.bankCountries : undefined,
      })
      .then((list) => {
        this.banks = { at: Date.now(), list };
        return list;
      })
      .finally(() => {
        this.banksLoading = null;
      });
    try {
      return await this.banksLoading;
    } catch (err) {
      // A stale list beats no checkout: the bank refuses at initiation if it is gone.
      if (this.banks) {
        this.opts.log.warn({ err }, 'Token.io bank list refresh failed; serving the cached list');
        return this.banks.list;
      }
      throw err;
    }
  }

  async listBanks(filter: BankFilter = {}): Promise<BankChoice[]> {
    const q = filter.search?.trim().toLowerCase();
    return (await this.allBanks())
      .filter(
        (b) =>
          (filter.purpose === 'mandate'
            ? b.supportsVariableRecurringPayment
            : b.supportsSinglePayment !== false) &&
          (!filter.country || (b.countries ?? []).includes(filter.country)) &&
          (!q || b.name.toLowerCase().includes(q) || (b.bic ?? '').toLowerCase().includes(q)),
      )
      .map((b) => ({
        id: b.id,
        name: b.name,
        description: (b.countries ?? []).join(', '),
        // Only the currencies this bank can take for the product: a rail it lists and no field it
        // requires that we do not send (docs/vendors/tokenio.md, point 19).
        currencies: currenciesOf(b, filter.purpose === 'mandate' ? 'VRP' : 'SIP'),
        // Payments at this bank ask for the payer's account (startAuthorization): the page shows the amended consent.
        ...(filter.purpose !== 'mandate' &&
        this.opts.config.refunds.returnRefundAccount &&
        b.supportsReturnRefundAccount
          ? { asksRefundAccount: true }
          : {}),
      }));
  }

  /** The creditor account rule of `creditorFor` (GBP needs a UK account), asked before any payment exists. */
  payeeCurrencyProblem(payee: Payee, currency: string): string | null {
    try {
      creditorFor(payee, currency);
      return null;
    } catch (err) {
      if (err instanceof BankRefusedError) return err.reason;
      throw err;
    }
  }

  /** Local only: the Token.io payment is created when the payer picks a bank. */
  async createSession(_input: CreateSessionInput): Promise<{ refId: string }> {
    return { refId: newRefId() };
  }

  async startAuthorization(input: StartAuthorizationInput): Promise<StartedAuthorization> {
    const { payment } = input;
    if (!payment.payee.subTppId)
      throw new BankRefusedError('The opco has no Sub-TPP id at the payment network');
    // The bank's instruments and required fields from the cached list: a bank that cannot take the
    // payment is refused here, before anything is created (the checkout does not offer it either).
    // Without the list, the rail's default instrument (the bank refuses at initiation if it cannot).
    const chosen = (await this.allBanks().catch(() => [] as TokenioBankV2[])).find(
      (b) => b.id === input.bankId,
    );
    const rail = railAt(chosen, payment.currency);
    if ('problem' in rail) throw new BankRefusedError(rail.problem);
    const { localInstrument, creditor } = creditorFor(payment.payee, payment.currency, rail.instrument);
    const initiation = {
      bankId: input.bankId,
      refId: input.refId,
      remittanceInformationPrimary: input.refId,
      // The merchant's reference as secondary remittance: letters, digits, '-' and spaces, at most
      // 140 characters (reference `remittanceInformationSecondary`); absent when nothing is left.
      ...secondaryRemittance(payment.merchantReference),
      onBehalfOfId: payment.payee.subTppId,
      amount: { value: payment.amount, currency: payment.currency },
      localInstrument,
      creditor,
      callbackUrl: input.returnUrl,
      callbackState: input.refId,
      flowType: 'EMBEDDED_HOSTED_PAGES',
      // The payer's account for refunds, from banks that support it (BankV2 `supportsReturnRefundAccount`).
      ...(this.opts.config.refunds.returnRefundAccount && chosen?.supportsReturnRefundAccount
        ? { returnRefundAccount: true }
        : {}),
      ...riskOf(input.payer?.psuId ?? null, this.opts.config.paymentContextCode),
    };
    let p: TokenioPayment;
    try {
      p = await this.opts.client.initiatePayment(initiation, {
        customerIpAddress: input.payer?.ipAddress ?? null,
      });
    } catch (err) {
      if (err instanceof BankRefusedError || !(err instanceof BankProviderError)) throw err;
      // Outcome unknown (timeout, 5xx, dropped connection): it exists only if Token.io can find it.
      const found = await this.opts.client
        .findPaymentByRefId(input.refId, false, payment.payee.subTppId)
        .catch(() => null);
      if (!found) throw err;
      p = found;
    }
    p = await this.awaitRedirect(p);
    return {
      transferId: p.id,
      authorizationUrl: awaitsPayer(p.status) ? (p.authentication?.redirectUrl ?? null) : null,
      providerStatus: providerStatusOf(p.status),
    };
  }

  /** INITIATION_PENDING has no redirect URL yet: read again a few times within SVC_TOKENIO_REDIRECT_WAIT_MS. */
  private async awaitRedirect(p: TokenioPayment): Promise<TokenioPayment> {
    const deadline = Date.now() + this.opts.config.redirectWaitMs;
    let current = p;
    for (
      let wait = 100;
      current.status === 'INITIATION_PENDING' && Date.now() + wait <= deadline;
      wait *= 2
    ) {
      await sleep(wait);
      current = (await this.opts.client.getPayment(p.id).catch(() => null)) ?? current;
    }
    return current;
  }

  async getSession(ref: SessionRef): Promise<BankSession | null> {
    const c = this.opts.client;
    const p = ref.transferId
      ? await c.getPayment(ref.transferId)
      : ((await c.findPaymentByRefId(ref.refId, false, ref.onBehalfOfId ?? null)) ??
        (await c.findPaymentByRefId(ref.refId, true, ref.onBehalfOfId ?? null)));
    if (!p) return null;
    const refundAccount = refundAccountOf(p.refundDetails);
    return {
      ...(refundAccount ? { refundAccount } : {}),
      refId: ref.refId,
      transferId: p.id,
      providerStatus: providerStatusOf(p.status),
      // Token.io ends abandoned payments itself (FAILED, EXPIRED): a live one is never given up on our side.
      expired: false,
      authorizationUrl: awaitsPayer(p.status) ? (p.authentication?.redirectUrl ?? null) : null,
      updatedAt: new Date(p.updatedDateTime),
      traceId: cleanTraceId(p.errorInfo?.tokenTraceId),
    };
  }

  /** Payments v2 has no cancel operation: the payment ends at Token.io when the payer leaves the bank. */
  async cancelSession(_refId: string): Promise<void> {}

  /** Token.io's notifications are unsigned: they are hints (`inbound`), never verified notifications. */
  verifyNotification(): null {
    return null;
  }

  /** PUT /webhook/config with our URL (SVC_TOKENIO_REGISTER_WEBHOOK). */
  async registerWebhook(url: string): Promise<void> {
    await this.opts.client.setWebhook(url, [
      'PAYMENT_STATUS_CHANGED',
      'VRP_STATUS_CHANGED',
      'VRP_CONSENT_STATUS_CHANGED',
      'REFUND_STATUS_CHANGED',
    ]);
  }
}
