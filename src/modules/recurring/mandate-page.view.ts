/** The hosted mandate authorization pages (merchant side): bank choice and result. */

import {
  bankColor,
  formatDate,
  formatDay,
  formatMoney,
  layout,
  perPeriod,
} from '../../platform/pages/layout';
import type { BankChoice } from '../../providers/bank/port';
import { html } from '../../shared/html';
import { consentBlock } from '../checkout/views/pages.view';
import type { MandatePageState } from './mandate-page.service';

/** How often the scheduled amount is taken: "per month", "every 2 weeks"; on demand: "per payment". */
function cadence(d: MandatePageState['d']): string {
  const sc = d.schedule;
  if (!sc) return 'per payment';
  return sc.interval_count === 1 ? perPeriod(sc.interval) : `every ${sc.interval_count} ${sc.interval}s`;
}

function limits(s: MandatePageState) {
  const d = s.d;
  return html`<section class="card summary" aria-labelledby="mandate-h">
<h2 id="mandate-h">Recurring payment mandate</h2>
<p class="label">${s.merchantName} asks to collect payments from your account</p>
${d.amount ? html`<p class="amount">${formatMoney(d.amount, d.currency)} <span class="per">${cadence(d)}</span></p>` : ''}
<dl class="facts">
${d.schedule ? html`<dt>First payment</dt><dd>${formatDay(d.schedule.start_date)}</dd>` : ''}
${d.description ? html`<dt>Description</dt><dd>${d.description}</dd>` : ''}
<dt>Maximum per payment</dt><dd>${formatMoney(d.maxAmountPerPayment, d.currency)}</dd>
<dt>Limit</dt><dd>${formatMoney(d.periodicAmount, d.currency)} ${perPeriod(d.period)}</dd>
${d.validTo ? html`<dt>Valid until</dt><dd>${formatDate(d.validTo)}</dd>` : ''}
${d.reference ? html`<dt>Statement reference</dt><dd>${d.reference}</dd>` : ''}
</dl>
</section>`;
}

export function mandateChoosePage(s: MandatePageState, banks: BankChoice[], error?: string): string {
  const body = html`${limits(s)}
<section class="card" aria-labelledby="auth-h">
<h1 id="auth-h">Authorize with your bank</h1>
<p class="lead">Choose your bank. You will authorize the mandate in your bank, then come back here.</p>
${error ? html`<div class="alert alert-error" role="alert">${error}</div>` : ''}
<form method="post" action="/checkout/mandate/${s.d.authorizationToken}/bank" class="stack">
<fieldset>
<legend>Your bank</legend>
${banks.map(
  (b, i) => html`<label class="bank" for="bank-${b.id}">
<input type="radio" name="bank_id" id="bank-${b.id}" value="${b.id}" required${i === 0 ? html` checked` : ''}>
<span class="logo" style="background:${bankColor(i)}" aria-hidden="true">${b.name.charAt(0)}</span>
<span class="txt"><strong>${b.name}</strong><small>${b.description}</small></span>
</label>`,
)}
</fieldset>
${
  s.consent
    ? consentBlock(s.consent, {
        amount: s.d.amount
          ? html`${formatMoney(s.d.amount, s.d.currency)} ${cadence(s.d)}`
          : html`up to ${formatMoney(s.d.maxAmountPerPayment, s.d.currency)} per payment`,
        reference: s.d.reference,
      })
    : ''
}
<button type="submit" class="btn btn-primary">Continue to bank</button>
</form>
<p class="fine">Link valid until ${formatDate(s.d.authorizationExpiresAt)}.</p>
</section>`;
  return layout({ title: 'Authorize mandate', merchantName: s.merchantName, body });
}

const RESULT: Record<string, { title: string; text: string; icon: string }> = {
  active: { title: 'Mandate authorized', text: 'Your bank authorized the mandate.', icon: '✓' },
  paused: { title: 'Mandate authorized', text: 'Your bank authorized the mandate.', icon: '✓' },
  authorization_failed: {
    title: 'Mandate not authorized',
    text: 'The mandate was not authorized.',
    icon: '!',
  },
  expired: {
    title: 'This authorization link has expired',
    text: 'Ask the merchant for a new link.',
    icon: '!',
  },
  canceled: { title: 'Mandate canceled', text: 'The merchant canceled this mandate.', icon: '!' },
  pending_authorization: { title: 'Waiting for your bank', text: 'We are waiting for your bank.', icon: '…' },
};

export function mandateResultPage(s: MandatePageState, returnUrl: string | null): string {
  const r = RESULT[s.expired ? 'expired' : s.d.status] ?? {
    title: 'Mandate closed',
    text: 'There is nothing left to authorize here.',
    icon: '!',
  };
  const body = html`<section class="card result" aria-labelledby="res-h">
<div class="icon" aria-hidden="true">${r.icon}</div>
<h1 id="res-h">${r.title}</h1>
<p class="lead" role="status">${r.text}</p>
${returnUrl ? html`<p><a class="btn btn-primary" href="${returnUrl}">Return to ${s.merchantName}</a></p>` : ''}
</section>`;
  return layout({ title: r.title, merchantName: s.merchantName, body });
}
