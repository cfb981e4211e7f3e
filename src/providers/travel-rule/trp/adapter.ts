/**
 * The travel-rule network over TRP (OpenVASP Travel Rule Protocol 3.2.1; docs/vendors/trp.md):
 * - outbound: `send` POSTs a transfer inquiry (IVMS 101 + asset DTI + integer amount + our callback)
 *   to the beneficiary VASP's inquiry endpoint; its approval or rejection arrives on that callback;
 *   `confirm` POSTs the transaction id to the callback its approval gave; `cancel` POSTs `canceled`
 *   there (before an approval TRP has nothing to withdraw an inquiry with);
 * - inbound: our inquiry endpoint takes inquiries from directory VASPs (the recipient is the owner of
 *   the beneficiary wallet, found by the module); `respond` POSTs our approval (with our confirmation
 *   callback) or rejection to the originator's callback; its confirmation arrives on ours.
 * All three arrive through the generic provider route at
 * `/api/v1/providers/travel-rule/trp/notifications/{token}`: `i.<vasp_id>.<mac>` (an inquiry from
 * that directory VASP: each counterparty has its own inquiry URL), `i.<vasp_id>.<client>.<mac>` (the
 * same, made for one client of ours: its inquiries go to that client only, and `GET …/identity` on
 * it answers that client's TRP identity; issued with the token repeated in its query, `?id=<token>&t=i`,
 * so that `GET /identity?id=<token>&t=i` at the origin's root, where TRISA's client asks, answers it
 * too; a query naming another token is a wrong URL), `r.<transfer>.<vasp_id>.<mac>`
 * (a resolution of our inquiry to that VASP; `r.<transfer>.<mac>` from before the URL named the
 * VASP is still taken) or `c.<transfer>.<mac>` (a confirmation for our approval). The mac
 * (HMAC-SHA256 under SVC_TRP_CALLBACK_SECRET, compared in constant time) makes each URL good for
 * its counterparty or its transfer only. An approval is taken only when its confirmation callback is
 * https (http on loopback only) on the origin of the answering VASP's inquiry URL: we post there later.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { normalizeAddress } from '../../../shared/chain-addresses';
import type { InboundCapability, InboundRequest, InboundResult } from '../../capabilities';
import {
  type Discovery,
  type RespondContext,
  type TransferMessage,
  type TravelRuleNetwork,
  type TravelRuleNotification,
  TravelRuleProviderError,
  type Vasp,
} from '../port';
import type { TrpClient } from './client';
import { httpsOrLoopback, type TrpConfig, type TrpVasp } from './config';
import {
  AmountError,
  fromBaseUnits,
  fromIvmsPerson,
  inquiryJson,
  originatingVaspOf,
  originatorProblem,
  parseConfirmation,
  parseInquiry,
  parseResolution,
  toBaseUnits,
  toIvms,
} from './mapping';
import { decodeTravelAddress, encodeTravelAddress, TravelAddressError } from './travel-address';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MALFORMED_INQUIRY = {
  type: 'refused',
  status: 400,
  detail:
    'Malformed TRP inquiry: asset.dti, an amount as a JSON integer in the lowest denomination, a callback URL and IVMS101 are required',
} as const;
const MALFORMED_RESOLUTION =
  'Malformed TRP resolution: exactly one of approved {address, callback} or rejected';
const MALFORMED_CONFIRMATION = 'Malformed TRP confirmation: exactly one of txid or canceled';
export const REFUSED_APPROVAL_CALLBACK =
  "Refused TRP approval: its callback must be an https URL on the answering VASP's own origin";
export const NOTIFICATIONS_PATH = '/api/v1/providers/travel-rule/trp/notifications';
/** The query parameter of a client's inquiry URL that repeats its token (read by the root `/identity`). */
export const IDENTITY_QUERY = 'id';

const header = (h: InboundRequest['headers'], name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

export class TrpNetwork implements TravelRuleNetwork {
  readonly configured = true;
  readonly retry: { delaysSeconds: readonly number[] };
  readonly inbound: InboundCapability<TravelRuleNotification, never>;

  constructor(
    private readonly config: TrpConfig,
    private readonly client: TrpClient,
    private readonly log?: Pick<FastifyBaseLogger, 'warn'>,
  ) {
    this.retry = { delaysSeconds: config.retrySeconds };
    this.inbound = { parse: (req) => this.parse(req) };
  }

  /**
   * Our URL for `kind` of `id`: `r` (resolution) and `c` (confirmation) of the transfer `id`, or `i`,
   * the inquiry endpoint we give the directory VASP `id` (each counterparty has its own, so an
   * inquiry names who sends it by the URL it reaches; docs/going-live-trp.md, step 2).
   */
  url(kind: 'r' | 'c' | 'i', id: string): string {
    return `${this.config.publicUrl}${NOTIFICATIONS_PATH}/${kind}.${id}.${this.mac(kind, id)}`;
  }

  /**
   * The inquiry URL we give the directory VASP `vaspId` (docs/going-live-trp.md, step 2): shared by
   * all our clients (the recipient is the owner of the beneficiary wallet), or made for one client
   * (`clientId`: its inquiries reach that client only, and its `/identity` is that client's).
   */
  inquiryUrl(vaspId: string, clientId?: string): string {
    if (!clientId) return this.url('i', vaspId);
    // A client's URL carries its token in the query too: TRISA's client asks for the identity at
    // `https://<host>/identity?<this query>` (it replaces the path, keeps the query), where the root
    // route reads it (docs/vendors/trp.md, "Identity endpoint"). Written as a travel address writes
    // it (`t=i` included, sorted), so the travel address decodes back to this very URL.
    const url = this.url('i', `${vaspId}.${clientId}`);
    const token = url.slice(url.lastIndexOf('/') + 1);
    return `${url}?${IDENTITY_QUERY}=${token}&t=i`;
  }

  /** `inquiryUrl` as a TRP travel address (for peers on TRP 3.1 and later; https is implied). */
  travelAddress(vaspId: string, clientId?: string): string {
    return encodeTravelAddress(this.inquiryUrl(vaspId, clientId));
  }

  inquiryAddressFor(vaspId: string, clientId?: string) {
    if (!this.config.directory.some((v) => v.vasp_id === vaspId)) return null;
    return {
      inquiryUrl: this.inquiryUrl(vaspId, clientId),
      travelAddress: this.travelAddress(vaspId, clientId),
    };
  }

  /**
   * The directory VASP a beneficiary's travel address belongs to: the one whose inquiry URL has the
   * origin it decodes to. Never an arbitrary URL: a peer we do not know (or an internal address) is
   * refused. An origin shared by several directory entries (a TRP host serving several VASPs) is
   * ambiguous unless `vaspId` (the transfer's `beneficiary_vasp_id`) names one of them.
   */
  resolveTravelAddress(travelAddress: string, vaspId?: string): { vaspId: string } | { problem: string } {
    let url: URL;
    try {
      url = new URL(decodeTravelAddress(travelAddress));
    } catch (err) {
      const why = err instanceof TravelAddressError ? err.message : 'it cannot be read';
      return { problem: `counterparty_wallet.travel_address is not a TRP travel address: ${why}` };
    }
    const owners = this.config.directory.filter((v) => new URL(v.inquiry_url).origin === url.origin);
    if (owners.length > 1 && vaspId !== undefined && owners.some((v) => v.vasp_id === vaspId))
      return { vaspId };
    if (owners.length !== 1)
      return {
        problem: `counterparty_wallet.travel_address names ${url.host}, which is ${owners.length ? 'the origin of several VASPs of our TRP directory (name one with beneficiary_vasp_id)' : 'not the origin of any VASP of our TRP directory'}`,
      };
    return { vaspId: owners[0]!.vasp_id };
  }

  /**
   * Where the inquiry for `msg` goes: the URL the beneficiary's travel address decodes to (checked
   * again against the VASP's origin), else the VASP's inquiry URL.
   */
  private inquiryTarget(msg: TransferMessage, vasp: TrpVasp): string {
    if (!msg.travelAddress) return vasp.inquiry_url;
    const r = this.resolveTravelAddress(msg.travelAddress, vasp.vasp_id);
    if ('problem' in r || r.vaspId !== vasp.vasp_id)
      throw new TravelRuleProviderError("trp: the travel address is not the VASP's");
    return decodeTravelAddress(msg.travelAddress);
  }

  /**
   * Our resolution callback for the inquiry of `transferId` to the directory VASP `vaspId`: it names
   * the VASP, so an approval arriving there is checked against that VASP's origin.
   */
  resolutionUrl(transferId: string, vaspId: string): string {
    return this.url('r', `${transferId}.${vaspId}`);
  }

  /**
   * An approval's confirmation callback we may post to later: https (http only on loopback, as for
   * every counterparty URL) and on the origin of the inquiry URL of one of `answering` (the VASP the
   * inquiry went to).
   */
  private approvalCallbackOk(callback: string, answering: readonly TrpVasp[]): boolean {
    if (!httpsOrLoopback(callback)) return false;
    const origin = new URL(callback).origin;
    return answering.some((v) => new URL(v.inquiry_url).origin === origin);
  }

  private mac(kind: string, id: string) {
    return createHmac('sha256', this.config.callbackSecret).update(`${kind}.${id}`).digest('base64url');
  }

  /** Constant-time check of a token's mac. */
  private macOk(kind: string, id: string, given: string): boolean {
    const expected = Buffer.from(this.mac(kind, id));
    const g = Buffer.from(given);
    return expected.length === g.length && timingSafeEqual(expected, g);
  }

  private toVasp(v: TrpVasp): Vasp {
    // TRP has no reachability probe: a VASP is reachable until a delivery says otherwise.
    return { vasp_id: v.vasp_id, name: v.name, country: v.country, lei: v.lei, reachable: true };
  }

  async directory(): Promise<Vasp[]> {
    return this.config.directory.map((v) => this.toVasp(v));
  }

  async discover(chain: string, address: string): Promise<Discovery> {
    let normalized = address;
    try {
      normalized = normalizeAddress(chain as never, address);
    } catch {
      return { hosted: false };
    }
    const v = this.config.directory.find((d) =>
      d.addresses.some((a) => a.chain === chain && a.address === normalized),
    );
    return v ? { hosted: true, vasp: this.toVasp(v) } : { hosted: false };
  }

  private assetOf(msg: Pick<TransferMessage, 'asset' | 'chain'>) {
    return this.config.assets.find((a) => a.asset === msg.asset && a.chain === msg.chain);
  }

  /**
   * What TRP cannot send for this transfer, known before any call (a setup gap or an originator
   * IVMS 101 does not take): the service refuses the transfer at creation with it (400).
   */
  checkOutbound(
    msg: Pick<TransferMessage, 'asset' | 'chain' | 'amount' | 'originator' | 'originatorVasp'>,
  ): string | null {
    const asset = this.assetOf(msg);
    if (!asset)
      return `${msg.asset} on ${msg.chain} has no Digital Token Identifier configured for the TRP network (SVC_TRP_ASSETS)`;
    if (!msg.originatorVasp.lei)
      return 'The travel-rule settings need originator_vasp.lei for the TRP network';
    try {
      toBaseUnits(msg.amount, asset.decimals);
    } catch (err) {
      return `The amount cannot be sent over TRP: ${err instanceof AmountError ? err.message : 'not a decimal'}`;
    }
    return originatorProblem(msg.originator);
  }

  async send(msg: TransferMessage): Promise<TravelRuleNotification | undefined> {
    const vasp = this.config.directory.find((v) => v.vasp_id === msg.vaspId);
    if (!vasp) throw new TravelRuleProviderError('trp: the VASP is not in the directory');
    const problem = this.checkOutbound(msg);
    if (problem) throw new TravelRuleProviderError(`trp: ${problem}`);
    const asset = this.assetOf(msg)!;
    const amount = toBaseUnits(msg.amount, asset.decimals);
    const body = inquiryJson({
      asset: { dti: asset.dti },
      amount,
      callback: this.resolutionUrl(msg.transferId, vasp.vasp_id),
      IVMS101: toIvms(msg),
    });
    const target = this.inquiryTarget(msg, vasp);
    const reply = await this.client.post('inquiry', target, body, `${msg.transferId}:inquiry`);
    // The beneficiary VASP may resolve the inquiry in its reply instead of on our callback.
    const r = parseResolution(reply);
    if (!r) return undefined;
    // An approval whose callback is not the VASP's own is not taken (the inquiry stays delivered).
    if ('approved' in r && !this.approvalCallbackOk(r.approved.callback, [vasp])) {
      this.log?.warn({ transferId: msg.transferId, vaspId: vasp.vasp_id }, REFUSED_APPROVAL_CALLBACK);
      return undefined;
    }
    return resolutionNotification(r, msg.transferId, randomUUID());
  }

  async respond(
    networkRef: string,
    answer: 'accepted' | 'rejected',
    reason: string | null,
    ctx?: RespondContext,
  ) {
    if (answer === 'accepted' && !ctx)
      throw new TravelRuleProviderError('trp: an approval needs the address');
    const body =
      answer === 'accepted'
        ? { approved: { address: ctx!.address, callback: this.url('c', ctx!.transferId) } }
        : { rejected: reason ?? 'Rejected by the beneficiary VASP' };
    // Each resolution is its own message (an approval and a later rejection are not replays of one
    // another); every attempt of one carries the same request-identifier.
    const name = answer === 'accepted' ? 'approved' : 'rejected';
    await this.client.post(
      'resolution',
      networkRef,
      JSON.stringify(body),
      `${networkRef}:resolution:${name}`,
    );
  }

  async cancel(transferId: string, _vaspId: string, callback?: string | null, reason?: string | null) {
    // Before an approval the beneficiary VASP gave no callback: TRP has no message to withdraw an inquiry.
    if (!callback) return;
    await this.client.post(
      'confirmation',
      callback,
      JSON.stringify({ canceled: reason ?? 'Canceled by the originator VASP' }),
      `${transferId}:canceled`,
    );
  }

  async confirm(transferId: string, callback: string, txHash: string) {
    await this.client.post('confirmation', callback, JSON.stringify({ txid: txHash }), `${transferId}:txid`);
  }

  /** TRP signs nothing in the body (its peers authenticate by mTLS at the edge): see `inbound`. */
  verifyNotification(): TravelRuleNotification | null {
    return null;
  }

  /**
   * The target of a token; for a resolution, the VASPs whose origin its approval's callback may
   * have: the VASP its URL names (none once that VASP left the directory), or any directory VASP
   * for a URL from before our resolution URLs named the VASP.
   */
  private checkToken(
    token: string,
  ):
    | { kind: 'r'; transferId: string; answering: readonly TrpVasp[] }
    | { kind: 'c'; transferId: string }
    | { kind: 'i'; vasp: TrpVasp; clientId: string | null }
    | null {
    const m = /^([rci])\.([A-Za-z0-9_-]{1,64})(?:\.([A-Za-z0-9_-]{1,64}))?\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m) return null;
    // The second id names the VASP of a resolution URL, or the client of an inquiry URL.
    const [, kind, id, second, mac] = m as unknown as [
      string,
      'r' | 'c' | 'i',
      string,
      string | undefined,
      string,
    ];
    if (second !== undefined && kind === 'c') return null;
    if (!this.macOk(kind, second === undefined ? id : `${id}.${second}`, mac)) return null;
    if (kind === 'i') {
      const vasp = this.config.directory.find((v) => v.vasp_id === id);
      if (!vasp || (second !== undefined && !UUID.test(second))) return null;
      return { kind: 'i', vasp, clientId: second ?? null };
    }
    const vaspId = second;
    if (!UUID.test(id)) return null;
    if (kind === 'c') return { kind, transferId: id };
    const answering =
      vaspId === undefined
        ? this.config.directory
        : this.config.directory.filter((v) => v.vasp_id === vaspId);
    return { kind, transferId: id, answering };
  }

  /**
   * TRP's identity request for one of our client inquiry URLs, asked either relative to it
   * (`…/i.<vasp_id>.<client>.<mac>/identity`: `pathSecret`, with a query that agrees with it if it
   * has one) or at the origin's root as TRISA's client asks (`/identity?id=<that token>&t=i`: no
   * `pathSecret`, the token from the query): the client it was made for, and the certificate we
   * present to peers (our mTLS client certificate, PEM). A shared counterparty URL names no client,
   * so it has no identity: null, as for a missing, unknown or forged token.
   */
  identityOf(
    req: Pick<InboundRequest, 'pathSecret' | 'query'>,
  ): { clientId: string; x509: string | null } | null {
    const q = req.query?.[IDENTITY_QUERY];
    const token = req.pathSecret ?? (typeof q === 'string' ? q : undefined);
    if (!token || !this.queryAgrees(token, req.query)) return null;
    const target = this.checkToken(token);
    if (target?.kind !== 'i' || !target.clientId) return null;
    return { clientId: target.clientId, x509: this.config.tls?.cert ?? null };
  }

  /**
   * Whether a request's query agrees with the token of its path: a client's inquiry URL repeats its
   * token as `?id=` (kept by peers that post to it as given); absent is fine (URLs issued before, and
   * peers that drop the query), another value or several are a wrong URL.
   */
  queryAgrees(token: string, query: InboundRequest['query']): boolean {
    const q = query?.[IDENTITY_QUERY];
    return q === undefined || q === token;
  }

  parse(req: InboundRequest): InboundResult<TravelRuleNotification, never> {
    const token = req.pathSecret;
    if (!token || !this.queryAgrees(token, req.query)) return { type: 'refused', status: 404 };
    const requestId = header(req.headers, 'request-identifier');
    const apiVersion = header(req.headers, 'api-version');
    const target = this.checkToken(token);
    if (!target) return { type: 'refused', status: 404 };
    // TRP requires both headers on every request; without them it is no TRP request.
    if (!apiVersion || !requestId || !UUID.test(requestId)) return { type: 'refused', status: 401 };
    if (target.kind === 'i') return this.parseInquiry(req.rawBody, requestId, target.vasp, target.clientId);
    if (target.kind === 'r') {
      const r = parseResolution(req.rawBody);
      if (!r) return { type: 'refused', status: 400, detail: MALFORMED_RESOLUTION };
      // We post our confirmation to the approval's callback later: only to the answering VASP's origin.
      if ('approved' in r && !this.approvalCallbackOk(r.approved.callback, target.answering))
        return { type: 'refused', status: 400, detail: REFUSED_APPROVAL_CALLBACK };
      return { type: 'notification', notification: resolutionNotification(r, target.transferId, requestId) };
    }
    const c = parseConfirmation(req.rawBody);
    if (!c) return { type: 'refused', status: 400, detail: MALFORMED_CONFIRMATION };
    return {
      type: 'notification',
      notification: {
        type: 'txid' in c ? 'transfer.completed' : 'transfer.canceled',
        eventId: requestId,
        reference: target.transferId,
        // TRP numbers nothing: the inquiry that created the transfer was 1, its confirmation comes after.
        revision: 2,
        txHash: 'txid' in c ? c.txid : null,
        reason: 'canceled' in c ? c.canceled : null,
      },
    };
  }

  /**
   * An inquiry on the URL we gave the directory VASP `vasp`: its body must name that VASP (by its
   * LEI) as originating VASP, and its callback must lie on that VASP's own origin: we call back only
   * where the counterparty we know lives.
   */
  private parseInquiry(
    raw: string,
    requestId: string,
    vasp: TrpVasp,
    clientId: string | null,
  ): InboundResult<TravelRuleNotification, never> {
    const q = parseInquiry(raw);
    // TRP answers a malformed message 400: the peer must not take it as delivered.
    if (!q) return MALFORMED_INQUIRY;
    const ivms = q.IVMS101 as Record<string, unknown>;
    const from = originatingVaspOf(ivms);
    if (from.lei !== vasp.lei) return { type: 'refused', status: 401 };
    let callbackOrigin: string;
    try {
      callbackOrigin = new URL(q.callback).origin;
    } catch {
      return MALFORMED_INQUIRY;
    }
    if (callbackOrigin !== new URL(vasp.inquiry_url).origin) return { type: 'refused', status: 401 };
    const asset = this.config.assets.find((a) => a.dti === q.asset.dti);
    const ben = (ivms.beneficiary ?? {}) as { beneficiaryPersons?: unknown[]; accountNumber?: unknown[] };
    const org = (ivms.originator ?? {}) as { originatorPersons?: unknown[]; accountNumber?: unknown[] };
    const benAccount = typeof ben.accountNumber?.[0] === 'string' ? (ben.accountNumber[0] as string) : '';
    const orgAccount =
      typeof org.accountNumber?.[0] === 'string' ? (org.accountNumber[0] as string) : undefined;
    return {
      type: 'notification',
      notification: {
        type: 'transfer.inbound',
        eventId: requestId,
        // The originator's callback names this transfer at the originator and is where we answer.
        reference: q.callback,
        revision: 1,
        recipient: null,
        onlyRecipient: clientId,
        transfer: {
          // An asset we do not carry has no chain here: no wallet matches and the inquiry is refused.
          asset: asset?.asset ?? q.asset.dti,
          chain: asset?.chain ?? '',
          amount: asset ? fromBaseUnits(q.amount, asset.decimals) : q.amount,
          fiat_value: null,
          originator: fromIvmsPerson(org.originatorPersons?.[0], orgAccount),
          beneficiary: fromIvmsPerson(ben.beneficiaryPersons?.[0], benAccount),
          beneficiary_address: benAccount,
          originator_vasp: {
            vasp_id: vasp.vasp_id,
            name: from.name ?? vasp.name,
            country: vasp.country,
            lei: vasp.lei,
          },
        },
      },
    };
  }
}

/** A resolution of our inquiry for `transferId` (on our callback or in the inquiry's reply): revision 1. */
function resolutionNotification(
  r: NonNullable<ReturnType<typeof parseResolution>>,
  transferId: string,
  eventId: string,
): TravelRuleNotification {
  return 'approved' in r
    ? {
        type: 'transfer.accepted',
        eventId,
        reference: transferId,
        revision: 1,
        reason: null,
        repairFields: null,
        counterpartyCallback: r.approved.callback,
        approvedAddress: r.approved.address,
      }
    : {
        type: 'transfer.rejected',
        eventId,
        reference: transferId,
        revision: 1,
        reason: r.rejected || null,
        repairFields: null,
      };
}
