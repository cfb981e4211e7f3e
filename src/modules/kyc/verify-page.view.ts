/**
 * The hosted verification page (same shell and stylesheet as the checkout): who is verified at
 * which level, and, on sandbox deployments, the tester's choice of outcome and checks.
 */

import { formatDate, layout } from '../../platform/pages/layout';
import { html } from '../../shared/html';

export interface VerifyView {
  token: string;
  merchantName: string;
  kind: 'kyc' | 'kyb';
  subjectName: string;
  subjectEmail: string;
  level: string;
  checks: string[];
  expiresAt: Date;
  verificationId: string;
}

const OUTCOMES = [
  { value: 'approved', label: 'Approved' },
  { value: 'declined', label: 'Declined' },
  { value: 'in_review', label: 'In review' },
  { value: 'expired', label: 'Expired (applicant did not finish)' },
] as const;

const CHECK_LABELS: Record<string, string> = {
  liveness: 'Liveness',
  face_match: 'Face match',
  nfc: 'NFC chip read',
  poa: 'Proof of address',
  aml: 'AML screening',
  sof_questionnaire: 'Source-of-funds questionnaire',
  registry: 'Company registry',
  key_people: 'Key people',
};
const checkLabel = (c: string) => CHECK_LABELS[c] ?? c.replace(/_/g, ' ');
const PAGE_CHECKS = { kyc: ['liveness', 'face_match', 'nfc', 'poa', 'aml'], kyb: ['aml'] };

const footer = 'Sandbox verification provider: no real identity data is processed.';
const secureLabel = 'Secure verification';

function summary(v: VerifyView) {
  return html`<section class="card summary" aria-labelledby="who-h">
<h2 id="who-h">${v.kind === 'kyc' ? 'Identity verification' : 'Business verification'}</h2>
<p class="label">${v.merchantName} asks you to verify</p>
<p class="amount">${v.subjectName}</p>
<dl class="facts">
<dt>${v.kind === 'kyc' ? 'Email' : 'Contact email'}</dt><dd>${v.subjectEmail}</dd>
<dt>Level</dt><dd>${v.level}</dd>
<dt>Checks of the level</dt><dd>${v.checks.length ? v.checks.map(checkLabel).join(', ') : 'Identity document only'}</dd>
<dt>Link valid until</dt><dd>${formatDate(v.expiresAt)}</dd>
</dl>
</section>`;
}

export interface ConsentView {
  text: string;
  privacyUrl: string | null;
  version: string;
  /** Set when the person already accepted on this link (they come back, e.g. to resubmit). */
  acceptedAt: Date | null;
}

/** The disclosure's text as the person sees it (the client's name filled in). */
export const renderConsentText = (text: string, merchantName: string) =>
  text.replaceAll('{merchant}', merchantName);

const vendorFooter = 'Identity verification is carried out by our verification provider.';

/**
 * A vendor-hosted verification's first step: the disclosure, accepted by a click before the vendor
 * receives any of the person's data (and before the link's level is set at the vendor). A GET of this
 * page sends nothing anywhere.
 */
export function verifyConsentPage(v: VerifyView, c: ConsentView, error?: string): string {
  const text = renderConsentText(c.text, v.merchantName);
  const body = html`${summary(v)}
<section class="card" aria-labelledby="consent-h">
<h1 id="consent-h">Before you start</h1>
${error ? html`<div class="alert alert-error" role="alert" id="consent-error">${error}</div>` : ''}
<p class="lead" id="consent-text">${text}</p>
${c.privacyUrl ? html`<p><a href="${c.privacyUrl}" target="_blank" rel="noopener">How your data is processed (privacy notice)</a></p>` : ''}
<form method="post" action="/verify/${v.token}" class="stack">
<input type="hidden" name="consent_version" value="${c.version}">
${
  c.acceptedAt
    ? html`<input type="hidden" name="consent" value="accept">
<p class="fine" role="status">You accepted this on ${formatDate(c.acceptedAt)}.</p>`
    : html`<div class="checks"><label class="bank" for="consent-accept">
<input type="checkbox" name="consent" id="consent-accept" value="accept" required${error ? html` aria-describedby="consent-error"` : ''}>
<span class="txt"><strong>I have read this and agree that my data is sent to the verification provider</strong></span>
</label></div>`
}
<button type="submit" class="btn btn-primary">Continue to verification</button>
</form>
</section>`;
  return layout({
    title: 'Verification',
    merchantName: v.merchantName,
    body,
    secureLabel,
    footer: vendorFooter,
  });
}

export function verifyPage(v: VerifyView, error?: string): string {
  const levelHas = (c: string) => v.checks.includes(c);
  const body = html`${summary(v)}
<section class="card" aria-labelledby="verify-h">
<h1 id="verify-h">Complete verification</h1>
<p class="lead">Sandbox: choose what the verification provider decides and which checks ran.</p>
<div class="sandbox-note" role="note">Sandbox provider: pick any outcome to test your integration.</div>
${error ? html`<div class="alert alert-error" role="alert" id="verify-error">${error}</div>` : ''}
<form method="post" action="/verify/${v.token}" class="stack">
<fieldset${error ? html` aria-describedby="verify-error"` : ''}>
<legend>Outcome</legend>
${OUTCOMES.map(
  (o, i) => html`<label class="bank" for="outcome-${o.value}">
<input type="radio" name="outcome" id="outcome-${o.value}" value="${o.value}" required${i === 0 ? html` checked` : ''}>
<span class="txt"><strong>${o.label}</strong></span>
</label>`,
)}
</fieldset>
<fieldset class="checks">
<legend>Checks that ran</legend>
${PAGE_CHECKS[v.kind].map(
  (c) => html`<label class="bank" for="check-${c}">
<input type="checkbox" name="${c}" id="check-${c}" value="on"${levelHas(c) ? html` checked` : ''}>
<span class="txt"><strong>${checkLabel(c)}</strong></span>
</label>`,
)}
</fieldset>
<div class="field">
<label for="aml-hits">AML hits</label>
<input type="number" id="aml-hits" name="aml_hits" min="0" max="100" value="0" inputmode="numeric" aria-describedby="aml-hits-help">
<small id="aml-hits-help">Used when AML screening ran.</small>
</div>
<button type="submit" class="btn btn-primary">Submit verification</button>
</form>
</section>`;
  return layout({ title: 'Verification', merchantName: v.merchantName, body, secureLabel, footer });
}

const RESULT: Record<string, { title: string; text: string }> = {
  approved: { title: 'Verification approved', text: 'Your verification was approved.' },
  declined: { title: 'Verification declined', text: 'Your verification was declined.' },
  in_review: { title: 'Verification in review', text: 'Your verification is being reviewed.' },
  expired: { title: 'Verification expired', text: 'The verification was not completed in time.' },
};

export function verifyResultPage(v: VerifyView, status: string, returnUrl: string | null): string {
  const r = RESULT[status] ?? { title: 'Verification submitted', text: 'We are waiting for the provider.' };
  const body = html`<section class="card result" aria-labelledby="res-h">
<div class="icon ${status}" aria-hidden="true">${status === 'approved' ? '✓' : status === 'declined' ? '✕' : '!'}</div>
<h1 id="res-h">${r.title}</h1>
<p class="lead" role="status">${r.text}</p>
<dl class="facts">
<dt>Verified</dt><dd>${v.subjectName}</dd>
<dt>Level</dt><dd>${v.level}</dd>
<dt>For</dt><dd>${v.merchantName}</dd>
</dl>
${returnUrl ? html`<p><a class="btn btn-primary" href="${returnUrl}">Return to ${v.merchantName}</a></p>` : ''}
</section>`;
  return layout({ title: r.title, merchantName: v.merchantName, body, secureLabel, footer });
}

export function verifyErrorPage(title: string, message: string, merchantName = 'Verification'): string {
  const body = html`<section class="card result" aria-labelledby="err-h">
<div class="icon expired" aria-hidden="true">!</div>
<h1 id="err-h">${title}</h1>
<p class="lead" role="alert">${message}</p>
</section>`;
  return layout({ title, merchantName, body, secureLabel, footer });
}
