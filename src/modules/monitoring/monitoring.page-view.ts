/** The hosted remediation page `/remediate/{token}` (same shell and stylesheet as the checkout). */
import { html } from '../../shared/html';
import { formatDate, formatMoney, layout } from '../checkout/views/layout';

export interface RemediationView {
  token: string;
  merchantName: string;
  type: string;
  amount: string;
  currency: string;
  counterpartyName: string;
  expiresAt: Date;
  wallet: { chain: string; address: string } | null;
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

function questions(v: RemediationView) {
  if (v.type === 'source_of_funds')
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
</div>`;
  if (v.type === 'wallet_ownership')
    return html`<p class="lead">Confirm that you control the wallet ${v.wallet ? `${v.wallet.chain} ${v.wallet.address}` : ''}. The merchant may ask you to prove it by signing a message.</p>
<div class="field"><label class="bank" for="confirm"><input type="checkbox" id="confirm" name="confirm" value="on" required><span class="txt"><strong>I control this wallet</strong></span></label></div>`;
  return html`<p class="lead">Confirm your identity details are still correct. The merchant will send you a new verification link if needed.</p>
<div class="field"><label class="bank" for="confirm"><input type="checkbox" id="confirm" name="confirm" value="on" required><span class="txt"><strong>My identity details are up to date</strong></span></label></div>`;
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
<form method="post" action="/remediate/${v.token}" class="stack">
${questions(v)}
<button type="submit" class="btn btn-primary">Submit</button>
</form>
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
