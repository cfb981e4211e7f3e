/**
 * The identity-verification provider adapter (KYC for users, KYB for business customers). The kyc
 * module talks to a vendor only through this interface; the sandbox simulator is the first
 * implementation. Calls are made outside database transactions.
 */
import { RECORD_STATUSES, type RecordStatus } from '../../db/schema/verification-records';
import type { Clock } from '../../shared/clock';

export type VerificationKind = 'kyc' | 'kyb';
/** Statuses of a verification as the service records them (its record's `status` column). */
export { RECORD_STATUSES, type RecordStatus };

export interface VerificationSubject {
  kind: VerificationKind;
  /** KYC: the user's names and email. */
  firstName?: string | null;
  lastName?: string | null;
  email: string;
  /** KYB: the company. */
  companyName?: string | null;
  registrationNumber?: string | null;
  country?: string | null;
}

export interface CreateVerificationInput {
  subject: VerificationSubject;
  level: string;
  checks: string[];
  /** The service's own id of this attempt (the vendor keeps it as external reference). */
  verificationId: string;
  /** The user's or business customer's id: vendors that keep one profile per person key it on this. */
  subjectId: string;
  /**
   * The provider reference of the person's latest earlier link, if any: a vendor that keeps one
   * profile per person reuses the profile it names while it is still active.
   */
  previousProviderRef?: string | null;
}

export interface DocumentRef {
  file_role: string;
  file_name: string;
  content_type: string;
}

/** The normalized result of a verification as fetched from the provider. */
export interface VerificationResult {
  providerRef: string;
  status: RecordStatus;
  /** Increases with every change the provider reports for this session. */
  revision: number;
  updatedAt: Date;
  decisionAt: Date | null;
  dataTrusted: boolean;
  /** The vendor will never change this result (e.g. a rejection it marks final): no new attempt can follow. */
  final?: boolean;
  /**
   * Vendors whose decision can change within one attempt (an officer turning an approval into a
   * rejection, ongoing monitoring): the vendor's own time of this state and a key of what it says.
   * The service applies a result whose key differs from the recorded one unless it is older than
   * the recorded state (`revision` is then not compared). `attempt` names the attempt (the key
   * starts with `<attempt>|`) and `restart` marks a state that starts over (a reset): a new attempt
   * or a restart after a recorded decision always applies, since the vendor's time of it may not
   * be renewed (it can be earlier than the recorded decision's).
   */
  version?: { at: Date; key: string; attempt?: string; restart?: boolean };
  identity: {
    firstName: string | null;
    lastName: string | null;
    fullName: string | null;
    dateOfBirth: string | null;
    nationality: string | null;
    documentType: string | null;
    documentIssuingCountry: string | null;
    documentExpiry: string | null;
    gender: string | null;
    documentNumber: string | null;
  } | null;
  checks: {
    /** score: null when the vendor reports no numeric score for the check. */
    liveness?: { status: string; score: number | null };
    faceMatch?: { status: string; score: number | null };
    nfc?: { status: string };
    poa?: { status: string; details: Record<string, unknown> };
    aml?: { status: string; totalHits: number; hits: Record<string, unknown>[] };
  };
  sofQuestionnaire: Record<string, unknown> | null;
  documents: DocumentRef[];
  company: {
    companyName: string;
    registrationNumber: string | null;
    registrationCountry: string | null;
    companyType: string | null;
    incorporationDate: string | null;
    registryStatus: string | null;
    registryDetails: Record<string, unknown> | null;
    keyPeople: Record<string, unknown>[] | null;
  } | null;
}

/** A verified inbound notification: "something changed for this session". */
export interface VerificationNotification {
  eventId: string;
  providerRef: string;
  status: string;
  revision: number;
  occurredAt: Date;
  /**
   * `session` (default): providerRef is a session's reference. `applicant`: it names the vendor's
   * profile of a person, reused across links; the notification concerns that profile's latest link.
   */
  scope?: 'session' | 'applicant';
  /** The vendor's kind of notification (Sumsub: `applicantReviewed`, `applicantReset`, …), when it names one. */
  type?: string;
  /** The vendor says this notification comes from its sandbox (refused by a production deployment). */
  sandbox?: boolean;
}

export interface DownloadedFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export class VerificationProviderError extends Error {
  /** `withdrawn`: the vendor's profile behind the link was deactivated or deleted (the link can never work again). */
  readonly code: 'withdrawn' | null;
  constructor(message: string, options?: { cause?: unknown; code?: 'withdrawn' }) {
    super(message, options);
    this.name = 'VerificationProviderError';
    this.code = options?.code ?? null;
  }
}

/**
 * The vendor could not be reached or failed (timeout, refused connection, 5xx, 429, open breaker):
 * nothing is known to be wrong with the request, so the caller answers 503 and a later try may work.
 * `kind` names the failure for logs (the platform's upstream error kinds, docs/platform.md).
 * Adapters wrap their transport's errors in it, so features depend on the port only.
 */
export class VerificationUnavailableError extends VerificationProviderError {
  readonly kind: string;
  constructor(message: string, options: { cause?: unknown; kind: string }) {
    super(message, { cause: options.cause });
    this.name = 'VerificationUnavailableError';
    this.kind = options.kind;
  }
}

/** What a tester can make the sandbox provider report (hosted page and sandbox simulate endpoint). */
export const SIMULATED_OUTCOMES = ['approved', 'declined', 'in_review', 'expired'] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];
export interface SimulatedChecks {
  liveness?: boolean;
  face_match?: boolean;
  nfc?: boolean;
  poa?: boolean;
  /** AML screening ran with this many hits. */
  aml_hits?: number;
}

/** What the service tells the adapter about the session whose result it reads. */
export interface SessionContext {
  kind: VerificationKind;
  checks: string[];
  /** The level the link was created with (our name): a vendor result at another level is not this session's. */
  level?: string;
  /** The service already holds a record of this session (a reset must be recorded, not skipped). */
  recorded?: boolean;
  /**
   * The read concerns the subject's latest link (a notification about the vendor's profile of the
   * person, or the sweep of approved subjects): a result that undoes a verification (a completed
   * rejection, a reset, a deactivation) applies to it whatever level it was decided at, so the
   * subject is no longer verified; an approval stays bound to its own level.
   */
  latest?: boolean;
  /** The version key of the recorded result (VerificationResult.version.key), if any: an unchanged state needs no costly reads. */
  recordedVersion?: string | null;
  /** The type of the vendor notification that asked for this read (a hint, e.g. a reset), if any. */
  notice?: string | null;
}

/**
 * A disclosure the person must accept on our hosted page before the vendor receives their personal
 * data (Sumsub: docs/going-live-sumsub.md §3a). `version` is recorded with the acceptance.
 */
export interface ConsentDisclosure {
  /** Plain text; `{merchant}` is replaced by the client's name. */
  text: string;
  privacyUrl: string | null;
  version: string;
}

/** The person's acceptance of the disclosure, as recorded on the link. */
export interface ConsentAcceptance {
  acceptedAt: Date;
  version: string;
}

export interface VerificationProvider {
  readonly name: string;
  /**
   * Vendors that must not receive personal data before the person accepted a disclosure: the hosted
   * page shows it, records the acceptance, and only then calls hostedVerificationUrl (which sends the
   * data). createSession then sends no personal data.
   */
  readonly consent?: ConsentDisclosure;
  /** Opens a verification session at the vendor; returns its reference. */
  createSession(input: CreateVerificationInput): Promise<{ providerRef: string }>;
  /**
   * The current result of a session (null when the vendor does not know it). `session` tells the
   * kind and the checks the link asked for (a check is reported only when asked and run).
   */
  fetchResult(providerRef: string, session?: SessionContext): Promise<VerificationResult | null>;
  fetchDocument(providerRef: string, fileRole: string): Promise<DownloadedFile | null>;
  fetchQuestionnaireFile(providerRef: string, qfileId: string): Promise<DownloadedFile | null>;
  /** Verifies an inbound notification's signature and parses it; null when unsigned, stale, badly signed or malformed. */
  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): VerificationNotification | null;
  /** Sandbox only: the vendor decides `outcome` for a session and notifies the service. */
  simulate?(providerRef: string, outcome: SimulatedOutcome, checks?: SimulatedChecks): Promise<void>;
  attach?(ctx: VerificationAttachContext): void;
  /**
   * Vendors with their own hosted verification (e.g. a WebSDK link): where our hosted page sends
   * the person for this session. `returnUrl` is where the vendor sends them back.
   */
  hostedVerificationUrl?(
    providerRef: string,
    input: {
      level: string;
      kind: VerificationKind;
      /** The person's data, sent to the vendor now (after the consent, when the vendor needs one). */
      subject: VerificationSubject;
      consent: ConsentAcceptance | null;
      returnUrl: string;
    },
  ): Promise<string>;
  /**
   * The reconcile part, for vendors whose results can be missed (notifications are hints): the
   * kyc reconciliation sweep re-reads open sessions and re-checks approved subjects on this policy.
   */
  readonly reconcile?: VerificationReconcile;
}

export interface VerificationReconcile {
  /** An open session is read again when nothing was heard of it for this long. */
  afterSeconds: number;
  /** An approved subject's latest session is read again this long after the vendor was last heard of it. */
  recheckApprovedSeconds: number;
}

export interface VerificationAttachContext {
  db: import('../../db/client').Db;
  clock: Clock;
  /** POSTs a notification through the service's own HTTP route. */
  deliver(rawBody: string, headers: Record<string, string>): Promise<{ statusCode: number; body: string }>;
}

export const VERIFICATION_SIGNATURE_HEADER = 'x-provider-signature';
