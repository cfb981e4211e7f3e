/** The hosted verification page's use cases: load a link by its token, submit the tester's outcome. */
import type { Deps } from '../../deps';
import {
  type ConsentAcceptance,
  type SimulatedChecks,
  type SimulatedOutcome,
  VerificationProviderError,
  type VerificationSubject,
  VerificationUnavailableError,
} from '../../providers/verification/port';
import { AppError, notFound } from '../../shared/errors';
import { findClientBusiness, findClientUser } from '../customers/customers.repo';
import { KycMessages } from './kyc.messages';
import { setLinkExpiryTimer } from './link-expiry.service';
import {
  findClient,
  findRecordBySession,
  findSessionByToken,
  markSessionSubmitted,
  recordSessionConsent,
  type SessionRow,
  updateSession,
} from './verification.repo';
import { renderConsentText, type VerifyView } from './verify-page.view';

export type LinkState = 'open' | 'used' | 'expired';

export interface HostedLink {
  session: SessionRow;
  view: VerifyView;
  state: LinkState;
  /** The person's data as the vendor gets it (only once they accepted its disclosure, when it has one). */
  subject: VerificationSubject;
}

export async function loadLink(deps: Deps, token: string): Promise<HostedLink> {
  const session = await findSessionByToken(deps.db, token);
  if (!session?.providerRef || session.status === 'creating' || session.status === 'failed')
    throw notFound(KycMessages.verificationNotFound);
  const client = await findClient(deps.db, session.clientId);
  let subjectName = '';
  let subjectEmail = '';
  let subject: VerificationSubject;
  if (session.kind === 'kyc') {
    const u = await findClientUser(deps.db, session.clientId, session.userId!);
    subjectName = [u?.firstName, u?.lastName].filter(Boolean).join(' ') || (u?.email ?? '');
    subjectEmail = u?.email ?? '';
    subject = { kind: 'kyc', firstName: u?.firstName, lastName: u?.lastName, email: subjectEmail };
  } else {
    const b = await findClientBusiness(deps.db, session.clientId, session.businessCustomerId!);
    subjectName = b?.companyName ?? '';
    subjectEmail = b?.email ?? '';
    subject = {
      kind: 'kyb',
      email: subjectEmail,
      companyName: b?.companyName,
      registrationNumber: b?.registrationNumber,
      country: b?.country,
    };
  }
  const state: LinkState =
    session.status === 'submitted' ? 'used' : session.expiresAt <= deps.clock.now() ? 'expired' : 'open';
  return {
    session,
    state,
    subject,
    view: {
      token,
      merchantName: client?.companyName ?? 'Verification',
      kind: session.kind as 'kyc' | 'kyb',
      subjectName,
      subjectEmail,
      level: session.level,
      checks: session.checks,
      expiresAt: session.expiresAt,
      verificationId: session.id,
    },
  };
}

/** Where the person goes afterwards: redirect_url with `verification_id` appended (an existing one is kept). */
export function returnUrlOf(session: SessionRow): string | null {
  if (!session.redirectUrl) return null;
  const u = new URL(session.redirectUrl);
  if (!u.searchParams.has('verification_id')) u.searchParams.append('verification_id', session.id);
  return u.toString();
}

/**
 * The tester's submission: single use (compare-and-set on the link), then the sandbox provider
 * decides and notifies the service through the signed notification route. Returns the record status.
 */
export async function submitLink(
  deps: Deps,
  link: HostedLink,
  outcome: SimulatedOutcome,
  checks: SimulatedChecks,
): Promise<string | null> {
  const provider = deps.providers.verification;
  if (!provider.simulate) throw new AppError(503, KycMessages.providerUnavailable);
  if (!(await markSessionSubmitted(deps.db, link.session.id, deps.clock.now()))) return null;
  try {
    await provider.simulate(link.session.providerRef!, outcome, checks);
  } catch (err) {
    deps.log.error({ err, verificationId: link.session.id }, 'sandbox verification failed');
    // Give the link back so the person can try again (usable again: its expiry timer too).
    await deps.db.transaction(async (tx) => {
      const back = await updateSession(tx, link.session.id, {
        status: 'pending',
        submittedAt: null,
        updatedAt: deps.clock.now(),
      });
      if (back) await setLinkExpiryTimer(tx, deps.clock, back);
    });
    throw new AppError(503, KycMessages.providerUnavailable);
  }
  const record = await findRecordBySession(deps.db, link.session.id);
  return record?.status ?? null;
}

/** Where a vendor-hosted flow sends the person back: the client's redirect_url, else our result page. */
export function providerReturnUrl(deps: Pick<Deps, 'config'>, link: HostedLink): string {
  return returnUrlOf(link.session) ?? `${deps.config.publicUrl}/verify/${link.view.token}/complete`;
}

/**
 * The link's recorded acceptance of the vendor's disclosure, if any; an acceptance of another
 * version than `currentVersion` (the text changed since) does not count: the person is asked again.
 */
export function consentOf(link: HostedLink, currentVersion: string | null): ConsentAcceptance | null {
  const s = link.session;
  if (!s.consentAcceptedAt || !s.consentVersion) return null;
  if (currentVersion !== null && s.consentVersion !== currentVersion) return null;
  return { acceptedAt: s.consentAcceptedAt, version: s.consentVersion };
}

/**
 * The person accepted the disclosure shown to them (`version`: what the page showed). Recorded on
 * the link with its time before any personal data reaches the vendor, with its evidence (the text
 * as shown, the IP address and user agent of the acceptance, append-only in verification_consents); a text changed since the page
 * was shown is refused (the person must read the current one). Answers the acceptance, or null.
 */
export async function acceptConsent(
  deps: Deps,
  link: HostedLink,
  version: string,
  from: { ip: string | null; userAgent: string | null },
): Promise<ConsentAcceptance | null> {
  const provider = deps.providers.verification;
  const disclosure = provider.consent;
  if (!disclosure || version !== disclosure.version) return null;
  return recordSessionConsent(
    deps.db,
    link.session,
    {
      provider: provider.name,
      version,
      text: renderConsentText(disclosure.text, link.view.merchantName),
      privacyUrl: disclosure.privacyUrl,
      ip: from.ip,
      userAgent: from.userAgent?.slice(0, 512) ?? null,
    },
    deps.clock.now(),
  );
}

/**
 * Vendor-hosted verification (Sumsub's WebSDK), after a click on our page (never on a GET, so a mail
 * scanner following the link sends nothing and moves nothing at the vendor) and, for a vendor with a
 * disclosure, after the person accepted it: the vendor gets the person's data and answers a fresh
 * link. The link is marked used on the first hand-over (so the expiry sweeper knows it was not left
 * unused); it can be reopened, for example to resubmit after a RETRY rejection.
 */
export async function handOverToProvider(
  deps: Deps,
  link: HostedLink,
  consent: ConsentAcceptance | null,
): Promise<string> {
  const provider = deps.providers.verification;
  if (!provider.hostedVerificationUrl) throw new AppError(503, KycMessages.providerUnavailable);
  try {
    const url = await provider.hostedVerificationUrl(link.session.providerRef!, {
      level: link.session.level,
      kind: link.view.kind,
      subject: link.subject,
      consent,
      returnUrl: providerReturnUrl(deps, link),
    });
    await markSessionSubmitted(deps.db, link.session.id, deps.clock.now());
    return url;
  } catch (err) {
    // The vendor's profile behind this link was deactivated or deleted: the link never works again.
    if (err instanceof VerificationProviderError && err.code === 'withdrawn')
      throw new AppError(410, KycMessages.linkWithdrawn);
    if (err instanceof VerificationUnavailableError)
      deps.log.warn({ kind: err.kind }, 'verification provider unavailable');
    else
      deps.log.error({ err, verificationId: link.session.id }, 'verification provider gave no hosted link');
    // A decided verification (approved, or declined) needs nothing more from the person: our usual
    // final page (or the client's redirect) rather than a retry-later error.
    const outcome = err instanceof VerificationUnavailableError ? null : await linkOutcome(deps, link);
    if (outcome === 'approved' || outcome === 'declined') return providerReturnUrl(deps, link);
    throw new AppError(503, KycMessages.providerUnavailable);
  }
}

/** The page a vendor-hosted flow returns to: the record's status as the provider reported it so far. */
export async function linkOutcome(deps: Deps, link: HostedLink): Promise<string | null> {
  const record = await findRecordBySession(deps.db, link.session.id);
  return record?.status ?? null;
}
