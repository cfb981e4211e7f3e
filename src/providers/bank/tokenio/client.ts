/**
 * Token.io's API as the adapter uses it, over the platform's resilient client (deadline, retries
 * of reads only, Retry-After, breaker, metrics). Shapes are those of docs/vendors/tokenio.md.
 * Errors come out as the port's: BankRefusedError for a 4xx (our own words; Token.io's are only
 * logged), BankProviderError for anything that may pass (timeouts, 5xx, 429, an open breaker).
 */
import type { FastifyBaseLogger } from 'fastify';
import { type Upstream, UpstreamError, type UpstreamRequest } from '../../../platform/upstream';
import { BankProviderError, BankRefusedError, RefundNeedsReviewError } from '../port';
import type { MandatoryFieldsEntry } from './creditor';

/** What payments (`Payment`) and VRP consents (`VrpConsent`) have in common. */
interface TokenioResource {
  id: string;
  status: string;
  statusReasonInformation?: string;
  authentication?: { redirectUrl?: string };
  createdDateTime: string;
  updatedDateTime: string;
}

export interface TokenioPayment extends TokenioResource {
  initiation: { refId: string; vrpConsentId?: string; [k: string]: unknown };
  /** Reference `Payment.errorInfo`: set when the payment ended unsuccessfully or hit an error. */
  errorInfo?: { httpErrorCode?: number; message?: string; tokenTraceId?: string };
  /** Reference `RefundDetails`: only with `returnRefundAccount` and Token.io's permission. */
  refundDetails?: TokenioRefundDetails;
}

/** Reference `RefundDetails` (on a Payment) and `RefundAccount` (an IBAN or a UK account, and a name). */
export interface TokenioRefundDetails {
  refundAccount?: {
    name?: string;
    iban?: string;
    bic?: string;
    sortCode?: string;
    accountNumber?: string;
  };
  paymentRefundStatus?: 'NONE' | 'PARTIAL' | 'FULL';
  settledRefundAmount?: { value: string; currency: string };
  remainingRefundAmount?: { value: string; currency: string };
}

/** Reference `Refund` (answer of POST /refunds and GET /refunds/{id} as `{ refund }`). */
export interface TokenioRefund {
  id: string;
  memberId: string;
  status: string;
  statusReasonInformation?: string;
  bankPaymentStatus?: string;
  bankTransactionId?: string;
  createdDateTime: string;
  updatedDateTime: string;
  initiation?: { refId?: string; originalPaymentId?: string; [k: string]: unknown };
}

export interface TokenioConsent extends TokenioResource {
  initiation: { refId: string; [k: string]: unknown };
}

export interface TokenioSubTpp {
  id: string;
  name: string;
  domain: string;
  status: string;
  statusReasonInformation?: string;
  merchant?: { companyRegistrationNumber?: string };
}

export interface TokenioBankV2 {
  id: string;
  name: string;
  bic?: string;
  countries?: string[];
  supportedLocalInstruments?: string[];
  supportsSinglePayment?: boolean;
  supportsVariableRecurringPayment?: boolean;
  supportsReturnRefundAccount?: boolean;
  /** Fields the bank requires in the request (reference `MandatoryFieldsv2`). */
  mandatoryFields?: MandatoryFieldsEntry[];
}

/**
 * `tokenTraceId` of an error answer: inside `error` (`inline_response_*`: `{ error: { errorCode,
 * message, tokenTraceId } }`) or at the top (`Error`); letters, digits, `-`, `_`, `:` and `.` only, at
 * most 100 characters (it goes to logs and the timeline). Null when absent or unreadable.
 */
export function traceIdOf(res: { json<T>(): T }): string | null {
  let body: { tokenTraceId?: unknown; error?: { tokenTraceId?: unknown } };
  try {
    body = res.json();
  } catch {
    return null;
  }
  return cleanTraceId(body?.error?.tokenTraceId ?? body?.tokenTraceId);
}

export function cleanTraceId(v: unknown): string | null {
  return typeof v === 'string' && /^[A-Za-z0-9_.:-]{1,100}$/.test(v) ? v : null;
}

type Query = Record<string, string | number | boolean | string[] | undefined>;

function qs(q: Query): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

export class TokenioClient {
  constructor(
    private readonly upstream: Upstream,
    private readonly sign: NonNullable<UpstreamRequest['sign']>,
    private readonly log: FastifyBaseLogger,
    /** Seconds Token.io may take before it answers with the state so far (`request-timeout`). */
    private readonly requestTimeoutSeconds: number,
    /** true when our pages collected the payer's consent (SVC_TOKENIO_CONSENT=ours). */
    private readonly pispConsentAccepted = true,
  ) {}

  /**
   * One call; `refused` is what a 4xx becomes (our words). 404 answers null when `notFoundIsNull`.
   * Every failed call is logged with Token.io's `tokenTraceId` from the error body (reference
   * `Error`, `BadRequestError`, `ServerError`: "The trace identifier for the given call"), which the
   * error also carries; never the body itself.
   */
  private async call<T>(
    req: Omit<UpstreamRequest, 'sign'>,
    refused: string,
    opts: { notFoundIsNull?: boolean; forbidden?: string } = {},
  ): Promise<T | null> {
    let res: Awaited<ReturnType<Upstream['request']>>;
    try {
      res = await this.upstream.request({ ...req, sign: this.sign });
    } catch (err) {
      if (err instanceof UpstreamError) {
        const traceId = err.response ? traceIdOf(err.response) : null;
        if (traceId)
          this.log.warn(
            { operation: req.operation, status: err.status, kind: err.kind, tokenTraceId: traceId },
            'Token.io call failed',
          );
        throw new BankProviderError(`Token.io ${req.operation}: ${err.kind}`, { cause: err, traceId });
      }
      throw err;
    }
    if (res.status < 300) {
      try {
        return res.json<T>();
      } catch (err) {
        throw new BankProviderError(`Token.io ${req.operation}: unreadable answer`, { cause: err });
      }
    }
    if (res.status === 404 && opts.notFoundIsNull) return null;
    const code = (() => {
      try {
        const e = res.json<{ error?: { errorCode?: unknown } }>().error?.errorCode;
        return typeof e === 'string' ? e.slice(0, 100) : null;
      } catch {
        return null;
      }
    })();
    if (res.status === 403 && opts.forbidden) {
      // Our credentials work elsewhere; this member may not use the operation: a refusal, not retried.
      this.log.warn(
        { operation: req.operation, status: res.status, errorCode: code },
        'Token.io forbade the operation',
      );
      throw new BankRefusedError(opts.forbidden, { cause: { status: res.status, errorCode: code } });
    }
    const traceId = traceIdOf(res);
    if (res.status === 401 || res.status === 403) {
      this.log.error(
        { operation: req.operation, status: res.status, tokenTraceId: traceId },
        'Token.io refused our credentials',
      );
      throw new BankProviderError(`Token.io ${req.operation}: HTTP ${res.status}`, {
        cause: { status: res.status, authRefused: true },
        traceId,
      });
    }
    this.log.warn(
      { operation: req.operation, status: res.status, errorCode: code, tokenTraceId: traceId },
      'Token.io refused the request',
    );
    throw new BankRefusedError(refused, { cause: { status: res.status, errorCode: code }, traceId });
  }

  /** GET of one object by id, answered as `{ [key]: object }`; null when Token.io does not know it. */
  private async getOne<T>(operation: string, path: string, key: string): Promise<T | null> {
    const r = await this.call<Record<string, T>>(
      { operation, method: 'GET', path, retrySafe: true },
      `Unknown object at ${operation}`,
      { notFoundIsNull: true },
    );
    return r?.[key] ?? null;
  }

  private json(body: unknown): { body: string; headers: Record<string, string> } {
    return { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  }

  /** A creation: POSTed once (a repeat could create twice), answered as `{ [key]: value }`. */
  private async createOne<T>(
    operation: string,
    path: string,
    payload: unknown,
    refused: string,
    key: string,
    extraHeaders: Record<string, string> = {},
  ): Promise<T> {
    const { body, headers } = this.json(payload);
    const r = await this.call<Record<string, T>>(
      { operation, method: 'POST', path, body, headers: { ...headers, ...extraHeaders }, retrySafe: false },
      refused,
    );
    if (r?.[key] === undefined) throw new BankProviderError(`Token.io ${operation}: answer without ${key}`);
    return r[key];
  }

  /**
   * POST /v2/payments: sent once (a repeat could pay twice); an unknown outcome is resolved by refId.
   * `customerIpAddress`: the payer's IP as `token-customer-ip-address`, which Token.io recommends
   * whenever the user is present (https://docs.token.io/products/tpp/tech-bulletins/tb-1236).
   */
  initiatePayment(
    initiation: Record<string, unknown>,
    opts: { customerIpAddress?: string | null } = {},
  ): Promise<TokenioPayment> {
    return this.createOne(
      'payments.initiate',
      '/v2/payments',
      { initiation, pispConsentAccepted: this.pispConsentAccepted },
      'The bank cannot take this payment',
      'payment',
      {
        'request-timeout': String(this.requestTimeoutSeconds),
        ...(opts.customerIpAddress ? { 'token-customer-ip-address': opts.customerIpAddress } : {}),
      },
    );
  }

  async getPayment(id: string): Promise<TokenioPayment | null> {
    const r = await this.call<{ payment: TokenioPayment }>(
      {
        operation: 'payments.get',
        method: 'GET',
        path: `/v2/payments/${encodeURIComponent(id)}`,
        retrySafe: true,
      },
      'Unknown payment',
      { notFoundIsNull: true },
    );
    return r?.payment ?? null;
  }

  /**
   * The payment with this refId (VRP payments are a separate list at Token.io), looked up on behalf
   * of the Sub-TPP that made it: `onBehalfOfId` "is mandatory for unregulated TPPs" on GetPayments
   * as on creation (https://docs.token.io/products/tpp/api/reference/, GET /v2/payments; TB-1549).
   */
  async findPaymentByRefId(
    refId: string,
    vrp: boolean,
    onBehalfOfId: string | null,
  ): Promise<TokenioPayment | null> {
    const r = await this.call<{ payments: TokenioPayment[] }>(
      {
        operation: 'payments.list',
        method: 'GET',
        path: `/v2/payments${qs({
          limit: 10,
          refIds: [refId],
          onBehalfOfId: onBehalfOfId ?? undefined,
          type: vrp ? 'VARIABLE_RECURRING_PAYMENT' : undefined,
        })}`,
        retrySafe: true,
      },
      'Payments could not be listed',
    );
    const found = (r?.payments ?? []).filter((p) => p.initiation?.refId === refId);
    // Never more than one by our own rules; the newest wins if Token.io ever holds two.
    return found.sort((a, b) => b.createdDateTime.localeCompare(a.createdDateTime))[0] ?? null;
  }

  async listBanks(query: Query): Promise<TokenioBankV2[]> {
    const perPage = 200;
    const all: TokenioBankV2[] = [];
    for (let page = 1; page <= 50; page++) {
      const r = await this.call<{ banks?: TokenioBankV2[] }>(
        {
          operation: 'banks.list',
          method: 'GET',
          path: `/v2/banks${qs({ ...query, page, perPage })}`,
          retrySafe: true,
        },
        'Banks could not be listed',
      );
      const banks = r?.banks ?? [];
      all.push(...banks);
      if (banks.length < perPage) break;
    }
    return all;
  }

  async setWebhook(url: string, types: string[]): Promise<void> {
    const { body, headers } = this.json({ config: { type: types, url } });
    await this.call(
      { operation: 'webhook.set', method: 'PUT', path: '/webhook/config', body, headers, retrySafe: true },
      'The webhook configuration was refused',
    );
  }

  /** POST /member/sub-tpps: sent once; the caller looks for an earlier registration first. */
  createSubTpp(payload: Record<string, unknown>): Promise<string> {
    return this.createOne(
      'subtpps.create',
      '/member/sub-tpps',
      payload,
      'The payment network refused the Sub-TPP application',
      'subTppId',
    );
  }

  getSubTpp(id: string): Promise<TokenioSubTpp | null> {
    return this.getOne('subtpps.get', `/member/sub-tpps/${encodeURIComponent(id)}`, 'subTpp');
  }

  async findSubTppsByName(name: string): Promise<TokenioSubTpp[]> {
    const r = await this.call<{ subTpps?: TokenioSubTpp[] }>(
      {
        operation: 'subtpps.list',
        method: 'GET',
        path: `/member/sub-tpps${qs({ 'page.limit': 199, 'filter.byCompanyNames': [name] })}`,
        retrySafe: true,
      },
      'Sub-TPPs could not be listed',
    );
    return r?.subTpps ?? [];
  }

  /** POST /vrp-consents: sent once; an unknown outcome is resolved by refId. */
  createConsent(initiation: Record<string, unknown>): Promise<TokenioConsent> {
    return this.createOne(
      'vrp.consents.create',
      '/vrp-consents',
      { initiation, pispConsentAccepted: this.pispConsentAccepted },
      'The bank cannot set up this mandate',
      'vrpConsent',
    );
  }

  getConsent(id: string): Promise<TokenioConsent | null> {
    return this.getOne('vrp.consents.get', `/vrp-consents/${encodeURIComponent(id)}`, 'vrpConsent');
  }

  /**
   * The consent with this refId, among those created after `createdAfter` on behalf of the Sub-TPP
   * (GetVrpConsents' `createdAfter` and `onBehalfOfId` filters, reference GET /vrp-consents): a few
   * consents to read instead of every consent of the member.
   */
  async findConsentByRefId(
    refId: string,
    filter: { onBehalfOfId: string | null; createdAfter: Date },
  ): Promise<TokenioConsent | null> {
    let offset: string | undefined;
    for (let page = 0; page < 20; page++) {
      const r = await this.call<{
        vrpConsents?: TokenioConsent[];
        pageInfo?: { nextOffset?: string; haveMore?: boolean };
      }>(
        {
          operation: 'vrp.consents.list',
          method: 'GET',
          path: `/vrp-consents${qs({
            limit: 200,
            offset,
            createdAfter: filter.createdAfter.toISOString(),
            onBehalfOfId: filter.onBehalfOfId ?? undefined,
          })}`,
          retrySafe: true,
        },
        'VRP consents could not be listed',
      );
      const hit = (r?.vrpConsents ?? []).find((c) => c.initiation?.refId === refId);
      if (hit) return hit;
      if (!r?.pageInfo?.haveMore) return null;
      offset = r.pageInfo.nextOffset;
    }
    return null;
  }

  /**
   * DELETE /vrp-consents/{id}: repeating a revocation changes nothing, so it is retried. Token.io
   * answers the consent with its status, REVOKED "on successful completion of the request with the
   * bank" (https://docs.token.io/products/tpp/vrp/vrp-consent-revocation): any other status is a
   * revocation not done yet, which the caller tries again.
   */
  async revokeConsent(id: string): Promise<void> {
    const r = await this.call<{ vrpConsent?: TokenioConsent }>(
      {
        operation: 'vrp.consents.revoke',
        method: 'DELETE',
        path: `/vrp-consents/${encodeURIComponent(id)}`,
        retrySafe: true,
      },
      'The VRP consent could not be revoked',
      { notFoundIsNull: true },
    );
    const status = r?.vrpConsent?.status;
    // REJECTED and FAILED consents cannot be charged either; AUTHORIZED or PENDING* still could.
    if (status === 'AUTHORIZED' || status?.startsWith('PENDING'))
      throw new BankProviderError(
        `Token.io vrp.consents.revoke: consent is ${status.slice(0, 40)}, not REVOKED`,
      );
  }
  // ---- refunds (reference "Refunds": POST /refunds, GET /refunds/{id}, GET /refunds) ----

  /**
   * POST /refunds: sent once (Token.io documents no de-duplication by refId); an unknown outcome is
   * resolved by refId. A 403 is a refusal ("refunds not enabled"), not a credentials problem: the
   * same credentials answer every other call, and retrying for two days would not enable refunds.
   */
  async initiateRefund(initiation: Record<string, unknown>): Promise<TokenioRefund> {
    const { body, headers } = this.json({ initiation });
    const r = await this.call<{ refund?: TokenioRefund }>(
      { operation: 'refunds.initiate', method: 'POST', path: '/refunds', body, headers, retrySafe: false },
      'The payment network refused the refund',
      {
        forbidden:
          'Refunds are not enabled for this Token.io member: ask Token.io to enable refunds, and refund this payment by bank transfer meanwhile.',
      },
    );
    if (!r?.refund) throw new BankProviderError('Token.io refunds.initiate: answer without refund');
    return r.refund;
  }

  getRefund(id: string): Promise<TokenioRefund | null> {
    return this.getOne('refunds.get', `/refunds/${encodeURIComponent(id)}`, 'refund');
  }

  /**
   * The refund with this refId, looked up on behalf of the Sub-TPP (GetRefunds' `onBehalfOfIds` "is
   * mandatory for unregulated TPPs", reference GET /refunds).
   */
  async findRefundByRefId(refId: string, onBehalfOfId: string | null): Promise<TokenioRefund | null> {
    const r = await this.call<{ refunds?: TokenioRefund[] }>(
      {
        operation: 'refunds.list',
        method: 'GET',
        path: `/refunds${qs({ limit: 10, refIds: [refId], onBehalfOfIds: onBehalfOfId ? [onBehalfOfId] : undefined })}`,
        retrySafe: true,
      },
      'Refunds could not be listed',
    );
    const found = (r?.refunds ?? []).filter((x) => x.initiation?.refId === refId);
    // One refund per refId by our own rules: several mean the money may have gone back twice.
    if (found.length > 1)
      throw new RefundNeedsReviewError(
        'Token.io holds several refunds under this refund’s reference: the payer may have been refunded twice. Check this payment’s refunds at Token.io.',
      );
    return found[0] ?? null;
  }
}
