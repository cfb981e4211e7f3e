/**
 * The travel-rule network adapter (docs/guides/travel-rule.md). The module speaks in normalized terms
 * (parties as the spec's Party objects; the adapter maps them to IVMS101). Calls are made outside
 * database transactions. Counterparty answers and inbound transfers arrive as signed notifications on
 * POST /providers/travel-rule/notifications.
 */
import type { Db } from '../../db/client';
import type { Clock } from '../../shared/clock';
import type { InboundRequest } from '../capabilities';

export interface Vasp {
  vasp_id: string;
  name: string;
  country: string;
  lei: string | null;
  reachable: boolean;
}

export type Discovery = { hosted: true; vasp: Vasp } | { hosted: false };

export interface TransferMessage {
  /** The service's transfer id; the counterparty's answers name it as `reference`. */
  transferId: string;
  vaspId: string;
  asset: string;
  chain: string;
  amount: string;
  originator: Record<string, unknown>;
  beneficiary: Record<string, unknown>;
  originatorVasp: { name: string; lei?: string | null; country: string };
  /** The beneficiary's travel address the client named (TRP): the inquiry goes where it decodes to. */
  travelAddress?: string | null;
}

export interface InboundTransferData {
  asset: string;
  chain: string;
  amount: string;
  /** Null when the network carries no fiat value (TRP inquiries have none). */
  fiat_value: { amount: string; currency: string } | null;
  originator: Record<string, unknown>;
  beneficiary: Record<string, unknown>;
  beneficiary_address: string;
  originator_vasp: { vasp_id: string; name: string; country: string; lei?: string | null };
}

/** A verified inbound notification. */
export type TravelRuleNotification =
  | {
      type: 'transfer.accepted' | 'transfer.rejected' | 'transfer.repair_requested' | 'transfer.expired';
      eventId: string;
      reference: string;
      revision: number;
      reason: string | null;
      repairFields: string[] | null;
      /** Where the counterparty takes our next message for this transfer (TRP: its confirmation callback). */
      counterpartyCallback?: string | null;
      /** The address the beneficiary VASP approved payment to, when its network names one (TRP). */
      approvedAddress?: string | null;
    }
  | {
      /** The originator VASP reports the on-chain transaction (completed) or calls it off (canceled) for an inbound transfer we accepted. */
      type: 'transfer.completed' | 'transfer.canceled';
      eventId: string;
      /** Our transfer id. */
      reference: string;
      revision: number;
      txHash: string | null;
      reason: string | null;
    }
  | {
      type: 'transfer.inbound';
      eventId: string;
      /** The network's id of the transfer. */
      reference: string;
      revision: number;
      /**
       * The receiving VASP's account at the network: the service's client id; null when the network
       * addresses the beneficiary only by its wallet (TRP): the owner of that wallet is the recipient.
       */
      recipient: string | null;
      /**
       * The client the URL the inquiry arrived on was made for (TRP: a client's own inquiry URL):
       * the wallet's owner must be this client, or the inquiry is refused as for an unknown wallet.
       */
      onlyRecipient?: string | null;
      transfer: InboundTransferData;
    };

export interface TravelRuleAttachContext {
  db: Db;
  clock: Clock;
  deliver: (
    rawBody: string,
    headers: Record<string, string>,
  ) => Promise<{ statusCode: number; body: string }>;
}

export class TravelRuleProviderError extends Error {
  /** True when the counterparty could not be reached (down, timeout, 5xx): sending again later may pass. */
  readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options);
    this.name = 'TravelRuleProviderError';
    this.retryable = options?.retryable ?? false;
  }
}

/** What an answer to an inbound transfer may need besides the network reference. */
export interface RespondContext {
  /** Our transfer id (TRP: it names our confirmation callback). */
  transferId: string;
  /** The beneficiary's wallet address (TRP: the address the approval names). */
  address: string;
}

export const TRAVEL_RULE_SIGNATURE_HEADER = 'X-Provider-Signature';

export interface TravelRuleNetwork {
  /** False for a deployment with no adapter: the service answers 503 and stores nothing. */
  readonly configured: boolean;
  attach?(ctx: TravelRuleAttachContext): void;
  /** The VASP directory. */
  directory(): Promise<Vasp[]>;
  /** Who hosts `address` on `chain`; unhosted when no VASP claims it. */
  discover(chain: string, address: string): Promise<Discovery>;
  /**
   * Sends (or re-sends after a repair) the transfer's data to the beneficiary VASP; returns the
   * counterparty's answer when its reply already carries one (TRP may resolve an inquiry at once).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: the networks that never answer in the reply return Promise<void>
  send(msg: TransferMessage): Promise<TravelRuleNotification | undefined | void>;
  /**
   * Why the network could not send this transfer whatever the counterparty (a setup gap, a party it
   * cannot carry), or null; the service refuses such a transfer at creation (400).
   */
  checkOutbound?(
    msg: Pick<TransferMessage, 'asset' | 'chain' | 'amount' | 'originator' | 'originatorVasp'>,
  ): string | null;
  /** Answers an inbound transfer back to the originator VASP. */
  respond(
    networkRef: string,
    answer: 'accepted' | 'rejected',
    reason: string | null,
    ctx?: RespondContext,
  ): Promise<void>;
  /**
   * Tells the counterparty that the transfer is canceled; `callback` is the counterparty's callback
   * stored from its answer (null when it has not answered), `reason` what it is told (null: the
   * network's own wording).
   */
  cancel(transferId: string, vaspId: string, callback?: string | null, reason?: string | null): Promise<void>;
  /**
   * A network whose beneficiary VASP expects the transaction hash once sent (TRP's transfer
   * confirmation) reports it to the callback the counterparty gave; absent: nothing to tell.
   */
  confirm?(transferId: string, callback: string, txHash: string): Promise<void>;
  /**
   * How a send the counterparty could not take (retryable error) is tried again: the waits in seconds
   * before each further attempt; absent: no retry (the transfer stays pending, as before).
   */
  readonly retry?: { readonly delaysSeconds: readonly number[] };
  /** Checks the signature and parses the body; null when unsigned, badly signed, stale or malformed. */
  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): TravelRuleNotification | null;
  /**
   * A network whose peers ask who we are at a URL of ours (TRP's `GET …/identity`, relative to the
   * inquiry URL: its secret as `pathSecret`; or at the origin's root: the secret in the `query`):
   * the client the URL secret was made for and the certificate we present (PEM; null when none is
   * configured), or null for a missing, unknown or forged secret.
   */
  identityOf?(
    req: Pick<InboundRequest, 'pathSecret' | 'query'>,
  ): { clientId: string; x509: string | null } | null;
  /**
   * A network whose peers need a URL of ours to send inquiries to (TRP): the one we give the
   * directory VASP `vaspId` (made for one client when `clientId` is given), with its travel address;
   * null when `vaspId` is not in the directory.
   */
  inquiryAddressFor?(vaspId: string, clientId?: string): { inquiryUrl: string; travelAddress: string } | null;
  /**
   * A network whose transfers may name the beneficiary's travel address (TRP): the directory VASP it
   * belongs to (the one whose inquiry URL has the origin it decodes to; `vaspId`, the transfer's
   * `beneficiary_vasp_id`, picks among several on one origin), or why it cannot be used.
   */
  resolveTravelAddress?(travelAddress: string, vaspId?: string): { vaspId: string } | { problem: string };
  /** Sandbox deployments only: what the simulator offers testers; absent on a real network adapter. */
  readonly sandbox?: TravelRuleSandbox;
}

export type SimulateAction = 'accept' | 'reject' | 'request_repair' | 'expire';

/** The sandbox network's hooks (a capability: features call `network.sandbox?.…`, never a class check). */
export interface TravelRuleSandbox {
  /** The counterparty answers now, through the signed notification route. */
  simulate(transferId: string, action: SimulateAction, repairFields: string[] | null): Promise<void>;
  /** An originator VASP sends `recipientClientId` a transfer; returns its network reference. */
  simulateInbound(
    recipientClientId: string,
    data: Omit<InboundTransferData, 'originator_vasp'>,
  ): Promise<string>;
  /**
   * Posts an answer the simulator scheduled earlier, now (its delivery timer's handler,
   * src/providers/sandbox-delivery.timers.ts); throws when the route refuses it.
   */
  deliverScheduled(body: Record<string, unknown>): Promise<void>;
}
