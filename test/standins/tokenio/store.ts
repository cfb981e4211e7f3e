/**
 * The stand-in's state and the order its objects move through, as Token.io documents it:
 * payments (reference `PaymentStatus`: INITIATION_PENDING -> _REDIRECT_AUTH -> _REDIRECT_AUTH_VERIFICATION
 * -> INITIATION_PROCESSING -> INITIATION_COMPLETED, or a final refusal), VRP consents (docs "VRP
 * consent status": PENDING -> PENDING_REDIRECT_AUTH -> _VERIFICATION -> AUTHORIZED | REJECTED |
 * FAILED, REVOKED), VRP payments (reference `VrpStatus`) and sub-TPPs (AWAITING_APPROVAL ->
 * ACTIVATED | REJECTED). Every payment change is announced as PAYMENT_STATUS_CHANGED, every consent
 * change as VRP_CONSENT_STATUS_CHANGED (its body is not documented: `{eventType, vrpConsent}` by
 * analogy with the payment one).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  errorBody,
  FINAL_PAYMENT_STATUSES,
  FINAL_REFUND_STATUSES,
  type Payment,
  type PaymentInitiation,
  type PaymentStatus,
  type Refund,
  type RefundAccount,
  type RefundInitiation,
  type RefundStatus,
  type SubTpp,
  type SubTppStatus,
  type VrpConsent,
  type VrpConsentInitiation,
  type VrpConsentStatus,
} from './fixtures';
import { Notifier } from './notifier';

export interface StoreOptions {
  memberId: string;
  /** Delay from INITIATION_PENDING to the bank's acknowledgement (the redirect URL). */
  bankAckDelayMs: number;
  /** Delay from INITIATION_PROCESSING to the final status after the payer approves. */
  processingMs: number;
  /** Delay before a VRP payment settles. */
  vrpSettleMs: number;
  /** Delay of Token.io's sub-TPP review; null: only control.decideSubTpp decides. */
  subTppReviewMs: number | null;
  /** Delay from a refund's INITIATION_PROCESSING to its final status. */
  refundSettleMs: number;
}

/**
 * `no_final_status`: the bank accepts the payment for processing, then never gives a final status
 * (INITIATION_NO_FINAL_STATUS_AVAILABLE, reference `PaymentStatus`); `approve_only`: the bank
 * accepts it and the payment stays INITIATION_PROCESSING until the test moves it.
 */
export type BankOutcome =
  | 'approve'
  | 'reject'
  | 'insufficient_funds'
  | 'decline'
  | 'expire'
  | 'no_final_status'
  | 'approve_only';
export type ConsentOutcome = 'authorize' | 'reject' | 'abandon';

const token = (n: number) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x');

const SUCCESSFUL: ReadonlySet<string> = new Set(['INITIATION_COMPLETED', 'SETTLEMENT_COMPLETED']);

export class StandinError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`stand-in error ${status}`);
  }
}

export class TokenioStore {
  readonly payments = new Map<string, Payment>();
  readonly consents = new Map<string, VrpConsent>();
  readonly subTpps = new Map<string, SubTpp>();
  readonly refunds = new Map<string, Refund>();
  /** POST /refunds bodies received (a test checks a refund is never sent twice). */
  refundCreations = 0;
  /**
   * While on, new refunds are not yet in GET /refunds (a list that lags the creation: Token.io
   * documents no read-after-write for it); they are on the payment's refundDetails at once.
   */
  refundListingLag = false;
  private readonly unlistedRefunds = new Set<string>();
  /** GET /vrp-consents calls answered (a test checks the adapter no longer scans every consent). */
  consentListReads = 0;
  /** Requests refused because Token.io's OpenAPI document does not allow them (tests assert none). */
  readonly referenceViolations: string[] = [];
  /** The bank does not complete revocations (DELETE answers the consent unchanged). */
  holdRevocations = false;
  /** The `pispConsentAccepted` each payment was created with (false or absent: Token.io's hosted page asks). */
  readonly consentAccepted = new Map<string, boolean>();
  /**
   * GET /v2/payments does not list a payment created less than this long ago: Token.io does not
   * document that its list is read-after-write, so the stand-in can model a list that lags behind
   * creations (0: it does not lag).
   */
  listLagMs = 0;
  /** The `token-customer-ip-address` header each payment was initiated with (TB-1236), by payment id. */
  readonly customerIp = new Map<string, string | null>();
  readonly notifier = new Notifier();
  /** Where the stand-in's own bank pages live (set once the server listens). */
  baseUrl = '';
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters = new Map<string, (() => void)[]>();

  constructor(readonly opts: StoreOptions) {}

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // ---- payments ----

  createPayment(initiation: PaymentInitiation): Payment {
    const now = new Date().toISOString();
    const p: Payment = {
      id: `pm2:${token(20)}:${token(8)}`,
      memberId: this.opts.memberId,
      initiation,
      status: 'INITIATION_PENDING',
      createdDateTime: now,
      updatedDateTime: now,
    };
    this.payments.set(p.id, p);
    this.notifier.send('PAYMENT_STATUS_CHANGED', { payment: p });
    if (initiation.vrpConsentId) this.startVrpPayment(p);
    else if (this.opts.bankAckDelayMs <= 0) this.acknowledge(p.id);
    else this.later(this.opts.bankAckDelayMs, () => this.acknowledge(p.id));
    return p;
  }

  /** Resolves when the payment leaves INITIATION_PENDING or after `ms`. */
  waitBeyondPending(id: string, ms: number): Promise<void> {
    const p = this.payments.get(id);
    if (p?.status !== 'INITIATION_PENDING' || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      const list = this.waiters.get(id) ?? [];
      list.push(() => {
        clearTimeout(t);
        resolve();
      });
      this.waiters.set(id, list);
    });
  }

  private acknowledge(id: string): void {
    const p = this.payments.get(id);
    if (p?.status !== 'INITIATION_PENDING') return;
    p.authentication = { redirectUrl: `${this.baseUrl}/bank/payments/${encodeURIComponent(id)}` };
    this.setPaymentStatus(id, 'INITIATION_PENDING_REDIRECT_AUTH', 'Awaiting authorization at the bank');
  }

  /** Moves a payment (announced by webhook); a final payment never moves again. */
  setPaymentStatus(id: string, status: PaymentStatus, reason?: string): Payment | null {
    const p = this.payments.get(id);
    if (!p || FINAL_PAYMENT_STATUSES.has(p.status)) return null;
    p.status = status;
    p.updatedDateTime = new Date().toISOString();
    if (reason) p.statusReasonInformation = reason;
    if (FINAL_PAYMENT_STATUSES.has(status)) delete p.authentication;
    // `errorInfo` (reference `Payment.errorInfo`): "populated if the status is final and the payment
    // is not successful", with the call's `tokenTraceId`.
    if (FINAL_PAYMENT_STATUSES.has(status) && !SUCCESSFUL.has(status))
      p.errorInfo = {
        httpErrorCode: 400,
        message: reason ?? status,
        tokenExternalError: false,
        tokenTraceId: `trace${token(12)}`,
      };
    if (status === 'INITIATION_COMPLETED') {
      p.bankTransactionId = `bt${token(10)}`;
      this.shareRefundAccount(p);
    }
    for (const w of this.waiters.get(id) ?? []) w();
    this.waiters.delete(id);
    this.notifier.send('PAYMENT_STATUS_CHANGED', { payment: p });
    return p;
  }

  /** The payer's decision on the stand-in bank's page; returns where the payer goes next. */
  decidePayment(id: string, outcome: BankOutcome): string | null {
    const p = this.payments.get(id);
    if (p?.status !== 'INITIATION_PENDING_REDIRECT_AUTH') return null;
    switch (outcome) {
      case 'approve':
        this.setPaymentStatus(id, 'INITIATION_PENDING_REDIRECT_AUTH_VERIFICATION');
        this.setPaymentStatus(id, 'INITIATION_PROCESSING', 'The bank is processing the payment');
        if (this.opts.processingMs <= 0) this.complete(id);
        else this.later(this.opts.processingMs, () => this.complete(id));
        break;
      case 'reject':
        this.setPaymentStatus(id, 'INITIATION_REJECTED', 'The bank rejected the payment');
        break;
      case 'insufficient_funds':
        this.setPaymentStatus(id, 'INITIATION_REJECTED_INSUFFICIENT_FUNDS', 'Insufficient funds');
        break;
      case 'decline':
        this.setPaymentStatus(id, 'INITIATION_DECLINED', 'The payer declined the payment');
        break;
      case 'expire':
        this.setPaymentStatus(id, 'INITIATION_EXPIRED', 'The bank did not answer in time');
        break;
      case 'no_final_status':
      case 'approve_only':
        this.setPaymentStatus(id, 'INITIATION_PENDING_REDIRECT_AUTH_VERIFICATION');
        this.setPaymentStatus(id, 'INITIATION_PROCESSING', 'The bank is processing the payment');
        if (outcome === 'no_final_status')
          this.setPaymentStatus(
            id,
            'INITIATION_NO_FINAL_STATUS_AVAILABLE',
            'No final status was received from the bank',
          );
        break;
    }
    return callbackOf(p.initiation.callbackUrl, {
      'member-id': this.opts.memberId,
      'payment-id': p.id,
      state: p.initiation.callbackState ?? '',
    });
  }

  /**
   * The bank reports a payment's outcome after Token.io gave it a "no final status" or an
   * "expired" ending. Token.io's documentation does not say that such a payment can still change;
   * the issue that asked for this (money may have moved) treats it as possible, so the stand-in
   * can model it: only from those two endings, announced like any other change.
   */
  reportLate(id: string, status: 'INITIATION_COMPLETED' | 'INITIATION_REJECTED'): Payment | null {
    const p = this.payments.get(id);
    if (p?.status !== 'INITIATION_NO_FINAL_STATUS_AVAILABLE' && p?.status !== 'INITIATION_EXPIRED')
      return null;
    p.status = status;
    p.updatedDateTime = new Date().toISOString();
    if (status === 'INITIATION_COMPLETED') p.bankTransactionId = `bt${token(10)}`;
    this.notifier.send('PAYMENT_STATUS_CHANGED', { payment: p });
    return p;
  }

  private complete(id: string): void {
    this.setPaymentStatus(id, 'INITIATION_COMPLETED', 'The payment is completed');
  }

  listPayments(f: {
    ids?: string[];
    refIds?: string[];
    statuses?: string[];
    type?: string;
    vrpConsentId?: string;
    onBehalfOfId?: string;
  }): Payment[] {
    const vrp = f.type === 'VARIABLE_RECURRING_PAYMENT';
    const visibleBefore = new Date(Date.now() - this.listLagMs).toISOString();
    return [...this.payments.values()].filter(
      (p) =>
        (this.listLagMs <= 0 || p.createdDateTime <= visibleBefore) &&
        Boolean(p.initiation.vrpConsentId) === vrp &&
        (!f.ids?.length || f.ids.includes(p.id)) &&
        (!f.refIds?.length || f.refIds.includes(p.initiation.refId)) &&
        (!f.statuses?.length || f.statuses.includes(p.status)) &&
        (!f.vrpConsentId || p.initiation.vrpConsentId === f.vrpConsentId) &&
        (!f.onBehalfOfId || p.initiation.onBehalfOfId === f.onBehalfOfId),
    );
  }

  // ---- VRP payments (reference `VrpStatus`) ----

  private startVrpPayment(p: Payment): void {
    const c = this.consents.get(p.initiation.vrpConsentId!);
    const refused = !c
      ? 'Unknown VRP consent'
      : c.status !== 'AUTHORIZED'
        ? `The VRP consent is ${c.status}`
        : c.initiation.currency !== p.initiation.amount.currency
          ? 'The currency differs from the VRP consent'
          : Number(p.initiation.amount.value) > Number(c.initiation.maximumIndividualAmount)
            ? 'The amount is above the VRP consent maximumIndividualAmount'
            : null;
    if (refused) {
      this.setPaymentStatus(p.id, 'INITIATION_REJECTED', refused);
      return;
    }
    this.setPaymentStatus(p.id, 'INITIATION_PROCESSING', 'The bank is processing the payment');
    const settle = () => {
      const cents = (p.initiation.amount.value.split('.')[1] ?? '00').padEnd(2, '0').slice(0, 2);
      if (cents === '52') this.setPaymentStatus(p.id, 'INITIATION_REJECTED', 'The bank rejected the payment');
      else if (cents === '54')
        this.setPaymentStatus(p.id, 'INITIATION_REJECTED_INSUFFICIENT_FUNDS', 'Insufficient funds');
      else if (cents !== '53') this.complete(p.id);
    };
    if (this.opts.vrpSettleMs <= 0) settle();
    else this.later(this.opts.vrpSettleMs, settle);
  }

  // ---- VRP consents ----

  createConsent(initiation: VrpConsentInitiation): VrpConsent {
    const now = new Date().toISOString();
    const c: VrpConsent = {
      id: `vc:${token(20)}:${token(8)}`,
      memberId: this.opts.memberId,
      initiation,
      createdDateTime: now,
      updatedDateTime: now,
      status: 'PENDING',
    };
    this.consents.set(c.id, c);
    this.notifier.send('VRP_CONSENT_STATUS_CHANGED', { vrpConsent: c });
    c.authentication = { redirectUrl: `${this.baseUrl}/bank/consents/${encodeURIComponent(c.id)}` };
    this.setConsentStatus(
      c.id,
      'PENDING_REDIRECT_AUTH',
      'The consent resource is awaiting user authorization',
    );
    return c;
  }

  setConsentStatus(id: string, status: VrpConsentStatus, reason?: string): VrpConsent | null {
    const c = this.consents.get(id);
    if (!c || ['REJECTED', 'REVOKED', 'FAILED'].includes(c.status)) return null;
    c.status = status;
    c.updatedDateTime = new Date().toISOString();
    if (reason) c.statusReasonInformation = reason;
    if (!status.startsWith('PENDING')) delete c.authentication;
    this.notifier.send('VRP_CONSENT_STATUS_CHANGED', { vrpConsent: c });
    return c;
  }

  decideConsent(id: string, outcome: ConsentOutcome): string | null {
    const c = this.consents.get(id);
    if (c?.status !== 'PENDING_REDIRECT_AUTH') return null;
    if (outcome === 'authorize') {
      this.setConsentStatus(id, 'PENDING_REDIRECT_AUTH_VERIFICATION');
      this.setConsentStatus(id, 'AUTHORIZED', 'The VRP consent is authorized');
    } else if (outcome === 'reject') this.setConsentStatus(id, 'REJECTED', 'The payer rejected the consent');
    else this.setConsentStatus(id, 'FAILED', 'The payer abandoned the consent');
    return callbackOf(c.initiation.callbackUrl, {
      'member-id': this.opts.memberId,
      'vrp-consent-id': c.id,
      state: c.initiation.callbackState,
    });
  }

  // ---- refunds (reference "Refunds"; docs "Refunds" under settlement accounts) ----

  /**
   * The bank shares the payer's account when the initiation asked `returnRefundAccount` and the bank
   * supports it (reference `PaymentInitiation.returnRefundAccount`, BankV2 `supportsReturnRefundAccount`).
   */
  private shareRefundAccount(p: Payment): void {
    if (p.initiation.returnRefundAccount !== true || p.refundDetails) return;
    const fps = p.initiation.localInstrument === 'FASTER_PAYMENTS';
    const refundAccount: RefundAccount = fps
      ? { name: 'Pat Payer', sortCode: '040004', accountNumber: '41234567' }
      : { name: 'Pat Payer', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' };
    p.refundDetails = {
      refundAccount,
      paymentRefundStatus: 'NONE',
      settledRefundAmount: { value: '0.00', currency: p.initiation.amount.currency },
      remainingRefundAmount: { ...p.initiation.amount },
    };
  }

  /** What Token.io checks before it takes a refund (docs "Refunds"); a refusal is a 400 as the reference lists. */
  createRefund(initiation: RefundInitiation): Refund {
    this.refundCreations += 1;
    const refuse = (message: string, paths: string[] = []) => {
      throw new StandinError(400, errorBody('InvalidArgument', message, { paths }));
    };
    const p = this.payments.get(initiation.originalPaymentId);
    if (!p) throw new StandinError(404, errorBody('NOT_FOUND', 'The original payment was not found'));
    // "If you're an unregulated TPP, you'll always need to pass the onBehalfOfId field".
    if (!initiation.onBehalfOfId) refuse('onBehalfOfId is required for unregulated TPPs', ['onBehalfOfId']);
    if (initiation.onBehalfOfId !== p.initiation.onBehalfOfId)
      refuse('onBehalfOfId does not match the original payment', ['onBehalfOfId']);
    if (p.status !== 'INITIATION_COMPLETED') refuse('The original payment is not completed');
    // "The creditor field can be optional if the information is available in the original payment."
    if (!p.refundDetails) refuse('No refund account is available for the original payment');
    if (initiation.amount.currency !== p.initiation.amount.currency)
      refuse('The currency differs from the original payment', ['amount.currency']);
    const cents = (v: string) => Math.round(Number(v) * 100);
    // "Token.io ensures that the TPP cannot initiate a refund where the total refunded amount will exceed the original payment amount."
    if (
      cents(initiation.amount.value) <= 0 ||
      cents(initiation.amount.value) > cents(p.refundDetails!.remainingRefundAmount.value)
    )
      refuse('The amount exceeds the remaining refund amount', ['amount.value']);
    const now = new Date().toISOString();
    const r: Refund = {
      id: `rf:${token(20)}:${token(8)}`,
      memberId: this.opts.memberId,
      status: 'INITIATION_PENDING',
      createdDateTime: now,
      updatedDateTime: now,
      initiation: {
        ...initiation,
        debtor: {
          name: String((p.initiation.creditor as { name?: unknown }).name ?? ''),
          ...p.initiation.creditor,
        },
        creditor: { ...p.refundDetails!.refundAccount, name: p.refundDetails!.refundAccount.name ?? 'Payer' },
      },
    };
    this.refunds.set(r.id, r);
    if (this.refundListingLag) this.unlistedRefunds.add(r.id);
    this.recountRefunds(p);
    this.notifier.send('REFUND_STATUS_CHANGED', { refund: r });
    this.setRefundStatus(r.id, 'INITIATION_PROCESSING', 'The refund is processing on the bank side');
    // Amount cents steer the outcome like the VRP payments: .52 rejected, .51 failed, .53 stays
    // processing, .55 no final status; anything else completes.
    const settle = () => {
      const c = (initiation.amount.value.split('.')[1] ?? '00').padEnd(2, '0').slice(0, 2);
      if (c === '52') this.setRefundStatus(r.id, 'INITIATION_REJECTED', 'The bank rejected the refund');
      else if (c === '51') this.setRefundStatus(r.id, 'INITIATION_FAILED', 'The bank is not available');
      else if (c === '55')
        this.setRefundStatus(r.id, 'INITIATION_NO_FINAL_STATUS_AVAILABLE', 'No final status from the bank');
      else if (c !== '53') this.setRefundStatus(r.id, 'INITIATION_COMPLETED', 'The refund is completed');
    };
    if (this.opts.refundSettleMs <= 0) settle();
    else this.later(this.opts.refundSettleMs, settle);
    return r;
  }

  /** The lagging list catches up: every refund is listed again. */
  listAllRefunds(): void {
    this.refundListingLag = false;
    this.unlistedRefunds.clear();
  }

  /** Moves a refund (announced as REFUND_STATUS_CHANGED); a final refund never moves again. */
  setRefundStatus(id: string, status: RefundStatus, reason?: string): Refund | null {
    const r = this.refunds.get(id);
    if (!r || FINAL_REFUND_STATUSES.has(r.status)) return null;
    r.status = status;
    r.updatedDateTime = new Date().toISOString();
    if (reason) r.statusReasonInformation = reason;
    if (status === 'INITIATION_COMPLETED') r.bankTransactionId = `bt${token(10)}`;
    const p = this.payments.get(r.initiation.originalPaymentId);
    if (p) this.recountRefunds(p);
    this.notifier.send('REFUND_STATUS_CHANGED', { refund: r });
    return r;
  }

  /** The payment's refundDetails amounts (reference: settled = COMPLETED refunds, remaining = amount - non-failed). */
  private recountRefunds(p: Payment): void {
    const d = p.refundDetails;
    if (!d) return;
    const cents = (v: string) => Math.round(Number(v) * 100);
    const mine = [...this.refunds.values()].filter((r) => r.initiation.originalPaymentId === p.id);
    const live = mine.filter((r) => r.status !== 'INITIATION_REJECTED' && r.status !== 'INITIATION_FAILED');
    const settled = mine.filter((r) => r.status === 'INITIATION_COMPLETED');
    const sum = (rs: Refund[]) => rs.reduce((a, r) => a + cents(r.initiation.amount.value), 0);
    const fmt = (c: number) => (c / 100).toFixed(2);
    const remaining = cents(p.initiation.amount.value) - sum(live);
    d.settledRefundAmount = { value: fmt(sum(settled)), currency: d.settledRefundAmount.currency };
    d.remainingRefundAmount = { value: fmt(remaining), currency: d.remainingRefundAmount.currency };
    d.paymentRefundStatus = sum(settled) === 0 ? 'NONE' : remaining <= 0 ? 'FULL' : 'PARTIAL';
  }

  listRefunds(f: {
    ids?: string[];
    refIds?: string[];
    statuses?: string[];
    onBehalfOfIds?: string[];
  }): Refund[] {
    return [...this.refunds.values()].filter(
      (r) =>
        !this.unlistedRefunds.has(r.id) &&
        (!f.ids?.length || f.ids.includes(r.id)) &&
        (!f.refIds?.length || f.refIds.includes(r.initiation.refId)) &&
        (!f.statuses?.length || f.statuses.includes(r.status)) &&
        (!f.onBehalfOfIds?.length || f.onBehalfOfIds.includes(r.initiation.onBehalfOfId ?? '')),
    );
  }

  // ---- sub-TPPs ----

  createSubTpp(
    body: Omit<SubTpp, 'id' | 'memberId' | 'status' | 'childSubTppIds' | 'createdAt' | 'updatedAt'>,
  ) {
    const now = new Date().toISOString();
    const s: SubTpp = {
      ...body,
      id: randomUUID(),
      memberId: this.opts.memberId,
      status: 'AWAITING_APPROVAL',
      childSubTppIds: [],
      createdAt: now,
      updatedAt: now,
    };
    this.subTpps.set(s.id, s);
    if (this.opts.subTppReviewMs !== null)
      this.later(this.opts.subTppReviewMs, () => {
        const reg = String(s.merchant.companyRegistrationNumber ?? '');
        if (/^REJECT/i.test(reg))
          this.decideSubTpp(s.id, 'REJECTED', 'Company registration could not be verified');
        else this.decideSubTpp(s.id, 'ACTIVATED', 'This sub-TPP has been activated.');
      });
    return s;
  }

  decideSubTpp(id: string, status: SubTppStatus, reason?: string): SubTpp | null {
    const s = this.subTpps.get(id);
    if (!s) return null;
    s.status = status;
    s.statusReasonInformation = reason;
    s.updatedAt = new Date().toISOString();
    return s;
  }
}

function callbackOf(base: string, params: Record<string, string>): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}
