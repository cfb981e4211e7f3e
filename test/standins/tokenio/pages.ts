/** The stand-in bank's own pages: where the payer authorizes a payment or a VRP consent. */
import type { Payment, VrpConsent } from './fixtures';
import { STANDIN_BANKS } from './fixtures';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
header{background:#0b3d2e;color:#fff;padding:.75rem 1rem;border-radius:.5rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}
button{display:block;width:100%;margin:.5rem 0;padding:.75rem;font-size:1rem;border-radius:.4rem;border:1px solid #0b3d2e;background:#fff;cursor:pointer}
button.primary{background:#0b3d2e;color:#fff}</style></head><body>${body}</body></html>`;
}

const bankName = (id: string | undefined) => STANDIN_BANKS.find((b) => b.id === id)?.name ?? 'Your bank';

function buttons(action: string, choices: [string, string][]): string {
  return `<form method="post" action="${esc(action)}">${choices
    .map(
      ([value, label], i) =>
        `<button type="submit" name="outcome" value="${esc(value)}"${i === 0 ? ' class="primary"' : ''}>${esc(label)}</button>`,
    )
    .join('')}</form>`;
}

export function paymentPage(p: Payment): string {
  const i = p.initiation;
  const creditor = String((i.creditor as { name?: string }).name ?? '');
  return page(
    'Authorize payment',
    `<header>${esc(bankName(i.bankId))} (Token.io stand-in)</header>
<h1>Authorize this payment</h1>
<dl><dt>Pay</dt><dd class="amount">${esc(i.amount.value)} ${esc(i.amount.currency)}</dd>
<dt>To</dt><dd>${esc(creditor)}</dd><dt>Reference</dt><dd>${esc(i.remittanceInformationPrimary)}</dd></dl>
${buttons(`/bank/payments/${encodeURIComponent(p.id)}`, [
  ['approve', 'Approve payment'],
  ['reject', 'Reject payment'],
  ['insufficient_funds', 'Reject: insufficient funds'],
  ['decline', 'Cancel and return'],
  ['expire', 'Let the bank time out'],
  ['no_final_status', 'Approve, but the bank never confirms'],
])}`,
  );
}

export function consentPage(c: VrpConsent): string {
  const i = c.initiation;
  const limits = i.periodicLimits.map(
    (l) => `${esc(l.maximumAmount)} ${esc(i.currency)} per ${esc(l.periodType.toLowerCase())}`,
  );
  return page(
    'Authorize VRP consent',
    `<header>${esc(bankName(i.bankId))} (Token.io stand-in)</header>
<h1>Authorize this recurring payments consent</h1>
<dl><dt>To</dt><dd>${esc(i.creditor.name)}</dd><dt>Maximum per payment</dt><dd>${esc(i.maximumIndividualAmount)} ${esc(i.currency)}</dd>
<dt>Limits</dt><dd>${limits.join(', ')}</dd></dl>
${buttons(`/bank/consents/${encodeURIComponent(c.id)}`, [
  ['authorize', 'Authorize consent'],
  ['reject', 'Reject consent'],
  ['abandon', 'Abandon'],
])}`,
  );
}

export function closedPage(): string {
  return page('Closed', '<h1>This request is closed</h1><p>There is nothing left to authorize here.</p>');
}
