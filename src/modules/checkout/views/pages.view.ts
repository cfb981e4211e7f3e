/** The hosted checkout pages: payment summary + bank choice, in-progress, result and error pages. */
import type { TransactionStatus } from '../../../db/schema/index';
import { bankColor, formatDate, formatMoney, layout, referenceFact } from '../../../platform/pages/layout';
import type { BankChoice, ConsentNotice } from '../../../providers/bank/port';
import { html, type SafeHtml } from '../../../shared/html';

export interface PaymentView {
  token: string;
  merchantName: string;
  amount: string;
  currency: string;
  description: string | null;
  /** The network's reference of the current session (ref_id), the same the bank page shows. */
  reference: string;
  expiresAt: Date;
  status: TransactionStatus;
  /** Sandbox deployment: the pages show a "Sandbox" badge. */
  sandbox: boolean;
  /**
   * Held for manual review without a success (no final status, an expiry or a cancel after the
   * payer was at the bank, a late completion): the money may have moved, so the payer is told not
   * to pay again instead of being sent for a new link.
   */
  heldForReview?: boolean;
  /** The network's consent notice, shown before the payer goes to the bank (null: the network asks itself). */
  consent?: (ConsentNotice & { beneficiary: string }) | null;
}

/**
 * The consent a network acting under its own licence requires on our page: the amount, the
 * beneficiary account name, the reference, and its sentence with the link to its Terms. `banks`:
 * the banks offered with the consent; the variant for a payment that asks the bank for the payer's
 * account (`refundAccount`, with our privacy notice) is shown only for those that are asked: alone
 * when every bank is, else next to the plain sentence, the style sheet showing the one that fits the
 * checked bank (where the browser cannot tell, the variant stays shown: never less than is asked).
 */
export function consentBlock(
  c: ConsentNotice & { beneficiary: string },
  facts: { amount: SafeHtml | string; reference: string | null },
  banks: readonly BankChoice[] = [],
): SafeHtml {
  const terms = (lead: string) =>
    html`${lead} <a href="${c.termsUrl}" target="_blank" rel="noopener">${c.termsLabel}</a>. By continuing you consent to this payment.`;
  const plain = (cls: string) => html`<p class="${cls}">${c.text} ${terms(c.termsLead)}</p>`;
  const asked = c.refundAccount ? banks.filter((b) => b.asksRefundAccount).length : 0;
  const ra = c.refundAccount;
  const variant = (cls: string) =>
    ra
      ? html`<p class="${cls}">${ra.text} ${terms(ra.termsLead)}${
          ra.privacyNoticeUrl
            ? html` How we use your account details: <a href="${ra.privacyNoticeUrl}" target="_blank" rel="noopener">privacy notice</a>.`
            : ''
        }</p>`
      : '';
  const sentences =
    asked === 0
      ? plain('fine')
      : asked === banks.length
        ? variant('fine')
        : html`<div class="consent-toggle">${plain('fine consent-plain')}${variant('fine consent-ra')}</div>`;
  return html`<section class="consent" aria-labelledby="consent-h">
<h2 id="consent-h" class="sr-only">Your consent</h2>
<dl class="facts">
<dt>Amount</dt><dd>${facts.amount}</dd>
<dt>Paid to</dt><dd>${c.beneficiary}</dd>
${facts.reference ? html`<dt>Reference</dt><dd>${facts.reference}</dd>` : ''}
</dl>
${sentences}
</section>`;
}

function summary(p: PaymentView): SafeHtml {
  return html`<section class="card summary" aria-labelledby="summary-h">
<h2 id="summary-h" class="sr-only">Payment summary</h2>
<p class="label">Pay ${p.merchantName}</p>
<p class="amount">${formatMoney(p.amount, p.currency)}</p>
<dl class="facts">
${p.description ? html`<dt>Description</dt><dd>${p.description}</dd>` : ''}
${referenceFact(p.reference)}
<dt>Link valid until</dt><dd>${formatDate(p.expiresAt)}</dd>
</dl>
</section>`;
}

function cancelForm(p: PaymentView): SafeHtml {
  return html`<form method="post" action="/checkout/${p.token}/cancel">
<button type="submit" class="btn btn-link">Cancel payment and return to ${p.merchantName}</button>
</form>`;
}

export function checkoutPage(
  p: PaymentView,
  banks: BankChoice[],
  opts: { error?: string; restarted?: boolean } = {},
): string {
  const body = html`${summary(p)}
<section class="card" aria-labelledby="pay-h">
<h1 id="pay-h">Pay by bank</h1>
<p class="lead">Choose your bank. You will approve the payment securely in your bank, then come back here.</p>
${opts.restarted ? html`<div class="alert alert-info" role="status">Your previous bank session expired. Choose your bank to start again.</div>` : ''}
${opts.error ? html`<div class="alert alert-error" role="alert" id="bank-error">${opts.error}</div>` : ''}
<form method="post" action="/checkout/${p.token}/bank" class="stack">
<fieldset${opts.error ? html` aria-describedby="bank-error"` : ''}>
<legend>Your bank</legend>
${banks.map(
  (b, i) => html`<label class="bank" for="bank-${b.id}">
<input type="radio" name="bank_id" id="bank-${b.id}" value="${b.id}" required${i === 0 ? html` checked` : ''}${b.asksRefundAccount ? html` data-refund-account` : ''}>
<span class="logo" style="background:${bankColor(i)}" aria-hidden="true">${b.name.charAt(0)}</span>
<span class="txt"><strong>${b.name}</strong><small>${b.description}</small></span>
</label>`,
)}
</fieldset>
${p.consent ? consentBlock(p.consent, { amount: formatMoney(p.amount, p.currency), reference: p.reference }, banks) : ''}
<button type="submit" class="btn btn-primary">Continue to bank · ${formatMoney(p.amount, p.currency)}</button>
</form>
${cancelForm(p)}
<p class="fine">Your payment is initiated directly from your bank account. We never see your bank credentials.</p>
</section>`;
  return layout({ title: 'Checkout', merchantName: p.merchantName, body, sandbox: p.sandbox });
}

export function inProgressPage(p: PaymentView, continueUrl: string | null): string {
  const body = html`${summary(p)}
<section class="card" aria-labelledby="prog-h">
<h1 id="prog-h">Waiting for your bank</h1>
<p class="lead" role="status">You started this payment with your bank. Finish approving it there.</p>
<div class="stack">
${continueUrl ? html`<a class="btn btn-primary" href="${continueUrl}">Continue at your bank</a>` : ''}
<a class="btn btn-secondary" href="/checkout/${p.token}">Check payment status</a>
</div>
${cancelForm(p)}
</section>`;
  return layout({ title: 'Waiting for your bank', merchantName: p.merchantName, body, sandbox: p.sandbox });
}

/** How often the "Confirming your payment" page reloads itself (a meta refresh: no JavaScript needed). */
export const CONFIRMING_REFRESH_SECONDS = 3;

/**
 * The payer is back from the bank (or the bank already has the payment) and the payment is not final
 * yet: the page reloads itself until it is, then shows the result. No cancel button: once the payer
 * approved at the bank, canceling here could not stop the money. `continueUrl` is set only while the
 * network still waits for the payer's approval (a payer who came back without finishing).
 */
export function confirmingPage(
  p: PaymentView,
  opts: { continueUrl: string | null; refreshUrl: string },
): string {
  const body = html`<section class="card result" aria-labelledby="conf-h">
<div class="icon processing" aria-hidden="true">…</div>
<h1 id="conf-h">Confirming your payment</h1>
<p class="lead" role="status">We are waiting for your bank to confirm the payment. This usually takes a few seconds; this page updates by itself. Please do not pay again.</p>
<dl class="facts">
<dt>Amount</dt><dd>${formatMoney(p.amount, p.currency)}</dd>
<dt>Merchant</dt><dd>${p.merchantName}</dd>
${referenceFact(p.reference)}
</dl>
<p><a class="btn btn-secondary" href="${opts.refreshUrl}">Check payment status</a></p>
${opts.continueUrl ? html`<p class="fine">Did not finish approving at your bank? <a href="${opts.continueUrl}">Continue at your bank</a>.</p>` : ''}
</section>`;
  return layout({
    title: 'Confirming your payment',
    merchantName: p.merchantName,
    body,
    sandbox: p.sandbox,
    refresh: { seconds: CONFIRMING_REFRESH_SECONDS, url: opts.refreshUrl },
  });
}

const RESULT_TEXT: Record<string, { title: string; text: string; icon: string }> = {
  success: { title: 'Payment complete', text: 'Your bank confirmed the payment.', icon: '✓' },
  failed: {
    title: 'Payment failed',
    text: 'Your bank did not complete the payment. No money was taken.',
    icon: '✕',
  },
  expired: {
    title: 'Payment link expired',
    text: 'This payment link is no longer valid. Ask the merchant for a new one.',
    icon: '!',
  },
  canceled: { title: 'Payment canceled', text: 'The payment was canceled. No money was taken.', icon: '✕' },
};

const HELD_TEXT = {
  title: 'Confirming your payment',
  text:
    'We are confirming this payment with your bank. Your bank may already have taken the money. ' +
    'Do not pay again: the merchant will contact you once the bank has confirmed.',
  icon: '…',
};

export function resultPage(p: PaymentView, returnUrl: string | null, httpNote?: string): string {
  const held = p.heldForReview === true && p.status !== 'success';
  const r = held
    ? HELD_TEXT
    : (RESULT_TEXT[p.status] ?? {
        title: 'Payment in progress',
        text: 'We are waiting for your bank.',
        icon: '…',
      });
  const body = html`<section class="card result" aria-labelledby="res-h">
<div class="icon ${held ? 'processing' : p.status}" aria-hidden="true">${r.icon}</div>
<h1 id="res-h">${r.title}</h1>
<p class="lead" role="status">${held ? r.text : (httpNote ?? r.text)}</p>
${held && httpNote ? html`<p class="fine">${httpNote}</p>` : ''}
<dl class="facts">
<dt>Amount</dt><dd>${formatMoney(p.amount, p.currency)}</dd>
<dt>Merchant</dt><dd>${p.merchantName}</dd>
${referenceFact(p.reference)}
</dl>
${returnUrl ? html`<p><a class="btn btn-primary" href="${returnUrl}">Return to ${p.merchantName}</a></p>` : ''}
</section>`;
  return layout({ title: r.title, merchantName: p.merchantName, body, sandbox: p.sandbox });
}
