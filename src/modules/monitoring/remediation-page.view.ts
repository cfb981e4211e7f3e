/** The hosted remediation page `/remediate/{token}` (same shell and stylesheet as the checkout). */

import { formatDate, formatMoney, layout } from '../../platform/pages/layout';
import { html } from '../../shared/html';

export interface RemediationView {
  token: string;
  merchantName: string;
  type: string;
  amount: string;
  currency: string;
  counterpartyName: string;
  expiresAt: Date;
  wallet: { chain: string; address: string } | null;
  /** identity_reverification: the KYC/KYB link (url null once used or expired) and its result so far. */
  verification: { url: string | null; recordStatus: string | null } | null;
  /** wallet_ownership: the wallet proof page of the ownership request and its status. */
  ownership: { proofUrl: string; status: string } | null;
  maxDocumentBytes: number;
}

const secureLabel = 'Secure review';
const footer = 'Your answers go to the merchant for its compliance review.';

export const SOURCES = [
  'salary',
  'savings',
  'business_income',
  'investments',
  'sale_of_property',
  'other',
] as const;
const SOURCE_LABELS: Record<string, string> = {
  salary: 'Salary',
  savings: 'Savings',
  business_income: 'Business income',
  investments: 'Investments',
  sale_of_property: 'Sale of property',
  other: 'Other',
};

const ACCEPT = '.pdf,.png,.jpg,.jpeg,.txt,.csv,.json,.log';
const megabytes = (n: number) => `${Math.floor((n / 1024 / 1024) * 10) / 10} MB`;

function sourceOfFunds(v: RemediationView) {
  return html`<div class="field">
<label for="source">Where do the funds come from?</label>
<select id="source" name="source" required>
<option value="">Choose…</option>
${SOURCES.map((s) => html`<option value="${s}">${SOURCE_LABELS[s]}</option>`)}
</select>
</div>
<div class="field">
<label for="explanation">Explain the origin of the funds</label>
<textarea id="explanation" name="explanation" maxlength="2000" rows="4" required></textarea>
</div>
<div class="field">
<label for="document">Supporting document (optional)</label>
<input type="file" id="document" name="document" accept="${ACCEPT}">
<p class="hint">PDF, PNG, JPEG or a text file (TXT, CSV, JSON, LOG), up to ${megabytes(v.maxDocumentBytes)}.</p>
</div>`;
}

function identity(v: RemediationView) {
  const link = v.verification?.url
    ? html`<p><a class="btn btn-secondary" id="verification-link" href="${v.verification.url}">Verify your identity</a></p>`
    : html`<p class="lead" id="verification-state">${
        v.verification?.recordStatus
          ? 'Your verification was received.'
          : 'The verification link is not available. The merchant will contact you.'
      }</p>`;
  return html`<p class="lead">Verify your identity again with the secure verification page. When the verification is finished, the merchant reviews this transaction.</p>
${link}
<div class="field"><label class="bank" for="confirm"><input type="checkbox" id="confirm" name="confirm" value="on" required><span class="txt"><strong>I have completed the verification</strong></span></label></div>`;
}

/** wallet_ownership has no form: the proof's outcome moves the remediation on. */
function walletProof(v: RemediationView) {
  const wallet = v.wallet ? `${v.wallet.chain} ${v.wallet.address}` : '';
  return html`<p class="lead">Prove that you control the wallet <span class="mono">${wallet}</span>. When the proof is done, the merchant reviews this transaction.</p>
${
  v.ownership && (v.ownership.status === 'pending' || v.ownership.status === 'verifying')
    ? html`<p><a class="btn btn-primary" id="wallet-proof-link" href="${v.ownership.proofUrl}">Prove wallet ownership</a></p>`
    : html`<p class="lead" id="wallet-proof-state">The wallet proof is not available. The merchant will contact you.</p>`
}`;
}

const TITLES: Record<string, string> = {
  source_of_funds: 'Tell us about the source of funds',
  identity_reverification: 'Confirm your identity',
  wallet_ownership: 'Confirm wallet ownership',
};

export function remediationPage(v: RemediationView, error?: string): string {
  const body = html`<section class="card summary" aria-labelledby="tx-h">
<h2 id="tx-h">Transaction under review</h2>
<p class="label">${v.merchantName} needs more information about</p>
<p class="amount">${formatMoney(v.amount, v.currency)}</p>
<dl class="facts">
<dt>Counterparty</dt><dd>${v.counterpartyName}</dd>
<dt>Link valid until</dt><dd>${formatDate(v.expiresAt)}</dd>
</dl>
</section>
<section class="card" aria-labelledby="rem-h">
<h1 id="rem-h">${TITLES[v.type] ?? 'More information needed'}</h1>
${error ? html`<div class="alert alert-error" role="alert" id="rem-error">${error}</div>` : ''}
${
  v.type === 'wallet_ownership'
    ? walletProof(v)
    : html`<form method="post" action="/remediate/${v.token}" enctype="multipart/form-data" class="stack">
${v.type === 'source_of_funds' ? sourceOfFunds(v) : identity(v)}
<button type="submit" class="btn btn-primary">Submit</button>
</form>`
}
</section>`;
  return layout({
    title: 'More information needed',
    merchantName: v.merchantName,
    body,
    secureLabel,
    footer,
  });
}

export function remediationDonePage(merchantName: string): string {
  const body = html`<section class="card result" aria-labelledby="done-h">
<div class="icon in_review" aria-hidden="true">✓</div>
<h1 id="done-h">Thank you</h1>
<p class="lead" role="status">Your answers were sent to ${merchantName} for review.</p>
</section>`;
  return layout({ title: 'Thank you', merchantName, body, secureLabel, footer });
}

export function remediationErrorPage(title: string, message: string): string {
  const body = html`<section class="card result" aria-labelledby="err-h">
<div class="icon expired" aria-hidden="true">!</div>
<h1 id="err-h">${title}</h1>
<p class="lead" role="alert">${message}</p>
</section>`;
  return layout({ title, merchantName: 'Review', body, secureLabel, footer });
}
