/**
 * The e-signing provider adapter (docs/guides/contracts.md). The contracts module
 * talks to a provider only through this interface; the sandbox simulator is the first adapter.
 * Calls are made outside database transactions. Everything a provider reports about participants
 * arrives as a signed notification on POST /api/v1/providers/esign/notifications.
 */
import type { Clock } from '../../shared/clock';
import type { InboundCapability } from '../capabilities';

/** A field to place for a role: page-relative fractions (0-1) from the page's top-left corner. */
export interface EnvelopeField {
  fieldId: string;
  role: string;
  type: 'signature' | 'initials' | 'name' | 'email' | 'date_signed' | 'text' | 'checkbox';
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  /** A value filled in by the sender (`field_values`), shown read-only. */
  prefill: string | null;
}

export interface EnvelopeInput {
  requestId: string;
  title: string;
  /** In envelope order; `content` and `fields` are what a vendor hosting the signing needs. */
  documents: { fileName: string; sha256: string; content: Buffer; fields: EnvelopeField[] }[];
  participants: {
    participantId: string;
    role: string;
    kind: 'signer' | 'approver' | 'viewer';
    signingOrder: number;
    name: string;
    email: string;
  }[];
  /** Copy recipients (they act on nothing; our own emails keep their timing). */
  cc: { name: string | null; email: string }[];
  /** Where the participant goes after acting on the vendor's page (the request's redirect_url). */
  redirectUrl: string | null;
}

export type EnvelopeResult =
  | {
      accepted: true;
      ref: string;
      /** The vendor's reference of each participant, when it has one (stored on the participant). */
      recipients?: { participantId: string; ref: string }[];
    }
  | { accepted: false; ref: string | null; reason: string };

/** What a vendor holds about an envelope now (its notifications are hints; this is the truth). */
export interface EnvelopeSnapshot {
  ref: string;
  status: 'draft' | 'pending' | 'completed' | 'rejected' | 'cancelled';
  recipients: {
    /** The vendor's reference (EnvelopeResult.recipients). */
    ref: string;
    viewed: boolean;
    /** Signed, approved or (viewer) acknowledged. */
    completed: boolean;
    completedAt: Date | null;
    declined: boolean;
    declineReason: string | null;
    /** When the vendor itself stops this recipient's link (null: never, or not told). Informational. */
    expiresAt?: Date | null;
  }[];
}

/** A vendor notification that only names an envelope: it is read again before anything changes. */
export interface EsignHint {
  envelopeRef: string;
}

/** The vendor is reachable but not ready (e.g. the sealed document is still being produced): retry later. */
export class EsignNotReadyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EsignNotReadyError';
  }
}

export const ESIGN_NOTIFICATION_TYPES = [
  'participant.viewed',
  'participant.signed',
  'participant.declined',
  'participant.bounced',
  'envelope.expired',
  'envelope.failed',
] as const;
export type EsignNotificationType = (typeof ESIGN_NOTIFICATION_TYPES)[number];

/** What a participant did on the signing page (reported to the provider, which notifies us). */
export interface ParticipantAction {
  envelopeRef: string;
  participantId: string;
  type: 'participant.viewed' | 'participant.signed' | 'participant.declined';
  reason?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  values?: Record<string, string>;
}

/** A verified inbound notification. */
export interface EsignNotification {
  eventId: string;
  envelopeRef: string;
  /**
   * The provider's revision of the envelope: an older or equal one changes nothing. Null for a
   * change read from the vendor's envelope (EnvelopeSnapshot): the transitions alone guard it.
   */
  revision: number | null;
  type: EsignNotificationType;
  participantId: string | null;
  reason: string | null;
  ip: string | null;
  userAgent: string | null;
  values: Record<string, string>;
  occurredAt: Date;
}

export const SIMULATE_ACTIONS = ['view', 'sign', 'decline', 'bounce', 'expire', 'fail'] as const;
export type SimulateAction = (typeof SIMULATE_ACTIONS)[number];

export class EsignProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EsignProviderError';
  }
}

export interface EsignProvider {
  readonly name: string;
  /** False for the production placeholder: the service answers 503 and stores nothing. */
  readonly configured: boolean;
  createEnvelope(input: EnvelopeInput): Promise<EnvelopeResult>;
  /** Best effort: tells the provider the request was voided. */
  voidEnvelope(ref: string, reason: string): Promise<void>;
  /** A signing group was invited (the provider may bounce an address). */
  participantsInvited(ref: string, participants: { participantId: string; email: string }[]): Promise<void>;
  /** The hosted signing page reports what the participant did. */
  reportAction(action: ParticipantAction): Promise<void>;
  /** Verifies the signature and parses; null when unsigned, stale, badly signed or malformed. */
  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): EsignNotification | null;
  /** Sandbox only: make the provider emit a notification. */
  simulate?(
    ref: string,
    action: SimulateAction,
    participantId: string | null,
    reason: string | null,
  ): Promise<void>;
  /**
   * Sandbox only: sends a delayed `+autosign` / `+autodecline` action the simulator scheduled
   * earlier, now (its timer's handler, src/providers/sandbox-delivery.timers.ts); false when the
   * envelope was voided meanwhile. Throws when the route refuses it.
   */
  deliverScheduled?(body: Record<string, unknown>): Promise<boolean>;
  attach?(ctx: EsignAttachContext): void;
  /**
   * Vendors whose own page collects the signature (Documenso): our inbound part reads their
   * notifications as hints, and the capabilities below let the contracts module re-read, hand the
   * participant over after our own gate, and take the vendor's sealed documents.
   */
  readonly inbound?: InboundCapability<EsignNotification, EsignHint>;
  hosted?: EsignHostedSigning;
  /**
   * The reconcile part, for vendors whose notifications can be lost (Documenso retries a failed
   * webhook only a few times): the contracts feature's e-signing reconciliation sweep reads live
   * envelopes again on this policy, through `hosted.readEnvelope`. Its loop runs only with it.
   */
  readonly reconcile?: EsignReconcile;
}

export interface EsignReconcile {
  /** A live envelope not read for this long is read again. */
  afterSeconds: number;
}

/** The part of a port whose vendor hosts the signing (docs/vendors/documenso.md). */
export interface EsignHostedSigning {
  /** What the vendor holds now. */
  readEnvelope(ref: string): Promise<EnvelopeSnapshot>;
  /** The vendor's signing page of one participant (asked afresh each time; never stored). */
  signingUrl(ref: string, recipientRef: string): Promise<string>;
  /** The vendor's sealed documents in envelope order; EsignNotReadyError until it has sealed them. */
  sealedDocuments(ref: string): Promise<Buffer[]>;
  /**
   * A participant's email or name was corrected: the vendor's recipient is replaced (its old link
   * stops working) and its fields placed again; returns the new recipient's reference.
   */
  replaceRecipient(
    ref: string,
    oldRecipientRef: string,
    participant: EnvelopeInput['participants'][number],
    fields: { documentIndex: number; field: EnvelopeField }[],
  ): Promise<string>;
}

export interface EsignAttachContext {
  db: import('../../db/client').Db;
  clock: Clock;
  deliver(rawBody: string, headers: Record<string, string>): Promise<{ statusCode: number; body: string }>;
}

export const ESIGN_SIGNATURE_HEADER = 'x-provider-signature';
