/**
 * Capabilities shared by the ports (src/providers/definition.ts says what a provider is): the inbound
 * part, by which a raw notification and its headers become a verified notification or a hint to
 * re-read. A port's reconcile part and sandbox hooks are typed by each port (`BankReconcile`,
 * `ScreeningSandbox`, …), since what is read again differs by kind.
 */

/** A raw inbound notification as the generic route received it. */
export interface InboundRequest {
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
  /** The last path segment of a URL that carries a shared secret (vendors that sign nothing), if any. */
  pathSecret?: string;
  /** The URL's query parameters (a repeated one as an array), for vendors whose URLs carry one. */
  query?: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * What a notification says: a verified notification to apply; a hint (the vendor signs nothing, so
 * the object it names is read again from the vendor before anything changes); nothing we read; or
 * a refusal (401 unsigned or badly signed, 404 a wrong URL secret, 400 a body the vendor's protocol
 * says must be answered as malformed, with its reason).
 */
export type InboundResult<N, H> =
  | { type: 'notification'; notification: N }
  | { type: 'hint'; hint: H }
  | { type: 'ignored'; keys?: string[] }
  | { type: 'refused'; status: 401 | 404 }
  | { type: 'refused'; status: 400; detail: string };

/** The inbound part of a port, for vendors whose notifications are not the port's signed ones. */
export interface InboundCapability<N, H> {
  parse(req: InboundRequest): InboundResult<N, H>;
  /**
   * Older public URLs (below /api/v1) the vendor may still post to, served by the same route and
   * documented with `summary` (e.g. `/providers/tokenio/webhook/:secret`, registered with Token.io
   * by deployments). A `:secret` segment becomes `InboundRequest.pathSecret`.
   */
  readonly aliases?: readonly { path: string; summary: string }[];
}

/** A port's inbound part: its own `inbound` capability, or its signed `verifyNotification`. */
export function parseInbound<N, H>(
  port: {
    verifyNotification(rawBody: string, headers: InboundRequest['headers']): N | null;
    readonly inbound?: InboundCapability<N, H>;
  },
  req: InboundRequest,
): InboundResult<N, H> {
  if (port.inbound) return port.inbound.parse(req);
  const n = port.verifyNotification(req.rawBody, req.headers);
  return n ? { type: 'notification', notification: n } : { type: 'refused', status: 401 };
}
