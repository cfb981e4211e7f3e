/**
 * The e-signing provider adapter (docs/guides/contracts.md). The contracts module
 * talks to a provider only through this interface; the sandbox simulator is the first adapter.
 * Calls are made outside database transactions. Everything a provider reports about participants
 * arrives as a signed notification on POST /api/v1/providers/esign/notifications.
 */
import type { Clock } from '../../shared/clock';

export interface EnvelopeInput {
  requestId: string;
  title: string;
  documents: { fileName: string; sha256: string }[];
  participants: { participantId: string; role: string; name: string; email: string }[];
}

export type EnvelopeResult =
  | { accepted: true; ref: string }
  | { accepted: false; ref: string | null; reason: string };

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
  revision: number;
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
  /** Sandbox only: run the delayed `+autosign` / `+autodecline` actions that are due. */
  runDueActions?(limit: number): Promise<number>;
  attach?(ctx: EsignAttachContext): void;
}

export interface EsignAttachContext {
  db: import('../../db/client').Db;
  clock: Clock;
  deliver(rawBody: string, headers: Record<string, string>): Promise<{ statusCode: number; body: string }>;
}

export const ESIGN_SIGNATURE_HEADER = 'x-provider-signature';
