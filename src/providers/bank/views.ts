/** The sandbox bank's own authorization page (looks like a bank, not like the merchant's checkout). */
import { bankColor, formatMoney, layout, perPeriod, referenceFact } from '../../platform/pages/layout';
import { html } from '../../shared/html';
import { MANDATE_OUTCOMES } from './sandbox-mandates';
import { SANDBOX_OUTCOMES, type SandboxOutcome } from './simulator';

export interface BankPageView {
  transferId: string;
  bankName: string;
  bankColor: string;
  merchantName: string;
  amount: string;
  currency: string;
  refId: string;
}

const SECONDARY: SandboxOutcome[] = ['reject', 'insufficient_funds', 'timeout'];

export function bankAuthorizationPage(v: BankPageView): string {
  const action = `/sandbox-bank/authorize/${encodeURIComponent(v.transferId)}`;
  const body = html`<section class="card summary" aria-labelledby="req-h">
<h2 id="req-h">Payment request</h2>
<p class="label">${v.merchantName} requests</p>
<p class="amount">${formatMoney(v.amount, v.currency)}</p>
<dl class="facts">
<dt>From account</dt><dd>Everyday account <span class="nobr">···· 4821</span></dd>
<dt>To</dt><dd>${v.merchantName}</dd>
${referenceFact(v.refId)}
</dl>
</section>
<section class="card" aria-labelledby="auth-h">
<h1 id="auth-h">Approve this payment</h1>
<p class="lead">You are signed in to ${v.bankName}. Check the details and approve or reject the payment.</p>
<div class="sandbox-note" role="note">Sandbox bank: pick any outcome to test your integration.</div>
<form method="post" action="${action}" class="stack">
<button type="submit" name="outcome" value="approve" class="btn btn-primary">${SANDBOX_OUTCOMES.approve.label}</button>
${SECONDARY.map(
  (o) =>
    html`<button type="submit" name="outcome" value="${o}" class="btn btn-secondary">${SANDBOX_OUTCOMES[o].label}</button>`,
)}
<button type="submit" name="outcome" value="cancel" class="btn btn-danger">${SANDBOX_OUTCOMES.cancel.label}</button>
</form>
</section>`;
  return layout({
    title: 'Approve payment',
    merchantName: v.merchantName,
    body,
    bank: { name: v.bankName, color: v.bankColor },
  });
}

export function bankSessionClosedPage(v: BankPageView, returnUrl: string | null, expired: boolean): string {
  const body = html`<section class="card result" aria-labelledby="closed-h">
<div class="icon expired" aria-hidden="true">!</div>
<h1 id="closed-h">${expired ? 'This bank session has expired' : 'This payment request is closed'}</h1>
<p class="lead" role="status">${expired ? 'Return to the merchant’s checkout to start again.' : 'There is nothing left to approve here.'}</p>
${returnUrl ? html`<p><a class="btn btn-primary" href="${returnUrl}">Return to ${v.merchantName}</a></p>` : ''}
</section>`;
  return layout({
    title: 'Session closed',
    merchantName: v.merchantName,
    body,
    bank: { name: v.bankName, color: v.bankColor },
  });
}

export interface BankMandateView {
  mandateRef: string;
  bankName: string;
  index: number;
  merchantName: string;
  currency: string;
  maxAmountPerPayment: string;
  periodicLimit: { amount: string; period: string };
  returnUrl: string | null;
}

export function bankMandatePage(v: BankMandateView): string {
  const action = `/sandbox-bank/mandates/${encodeURIComponent(v.mandateRef)}`;
  const body = html`<section class="card summary" aria-labelledby="mreq-h">
<h2 id="mreq-h">Mandate request</h2>
<p class="label">${v.merchantName} asks for a variable recurring payments mandate</p>
<dl class="facts">
<dt>From account</dt><dd>Everyday account <span class="nobr">···· 4821</span></dd>
<dt>Maximum per payment</dt><dd>${formatMoney(v.maxAmountPerPayment, v.currency)}</dd>
<dt>Periodic limit</dt><dd>${formatMoney(v.periodicLimit.amount, v.currency)} ${perPeriod(v.periodicLimit.period)}</dd>
</dl>
</section>
<section class="card" aria-labelledby="mauth-h">
<h1 id="mauth-h">Authorize this mandate</h1>
<p class="lead">You are signed in to ${v.bankName}.</p>
<div class="sandbox-note" role="note">Sandbox bank: pick any outcome to test your integration.</div>
<form method="post" action="${action}" class="stack">
<button type="submit" name="outcome" value="authorize" class="btn btn-primary">${MANDATE_OUTCOMES.authorize.label}</button>
<button type="submit" name="outcome" value="reject" class="btn btn-secondary">${MANDATE_OUTCOMES.reject.label}</button>
<button type="submit" name="outcome" value="timeout" class="btn btn-secondary">${MANDATE_OUTCOMES.timeout.label}</button>
</form>
</section>`;
  return layout({
    title: 'Authorize mandate',
    merchantName: v.merchantName,
    body,
    bank: { name: v.bankName, color: bankColor(v.index) },
  });
}

export function bankMandateClosedPage(v: BankMandateView): string {
  const body = html`<section class="card result" aria-labelledby="mclosed-h">
<div class="icon expired" aria-hidden="true">!</div>
<h1 id="mclosed-h">This mandate request is closed</h1>
<p class="lead" role="status">There is nothing left to authorize here.</p>
${v.returnUrl ? html`<p><a class="btn btn-primary" href="${v.returnUrl}">Return to ${v.merchantName}</a></p>` : ''}
</section>`;
  return layout({
    title: 'Mandate closed',
    merchantName: v.merchantName,
    body,
    bank: { name: v.bankName, color: bankColor(v.index) },
  });
}
