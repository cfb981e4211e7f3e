/**
 * Page shell and shared helpers of every hosted page (checkout, verification, signing, mandate and
 * remediation pages, and the sandbox bank's own pages). Every interpolated value is escaped by `html`.
 */
import { FAVICON_LINKS, html, type SafeHtml } from '../../shared/html';

export interface LayoutOptions {
  title: string;
  merchantName: string;
  body: SafeHtml;
  /** Bank pages use the bank's branding. */
  bank?: { name: string; color: string };
  /** Header badge and footer of non-checkout pages (the hosted verification page). */
  secureLabel?: string;
  footer?: string;
  /** A sandbox deployment: the header shows a "Sandbox" badge (never in production). */
  sandbox?: boolean;
  /** Reload the page every `seconds` (a meta refresh: works without JavaScript), at `url` when given. */
  refresh?: { seconds: number; url?: string };
}

const BANK_COLORS = ['#0d5c4a', '#7a2e8e', '#a4451a', '#1f5fa8'];
/** The brand colour of the i-th bank (the checkout's bank list and the sandbox bank's pages agree). */
export const bankColor = (i: number) => BANK_COLORS[i % BANK_COLORS.length]!;

export function layout(o: LayoutOptions): string {
  const brandName = o.bank ? o.bank.name : o.merchantName;
  const initial = brandName.trim().charAt(0).toUpperCase() || '?';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${o.title} · ${brandName}</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">
${FAVICON_LINKS}
${o.refresh ? html`<meta http-equiv="refresh" content="${o.refresh.seconds}${o.refresh.url ? html`;url=${o.refresh.url}` : ''}">` : ''}
</head>
<body class="${o.bank ? 'bankpage' : 'checkout'}"${o.bank ? html` style="--bank:${o.bank.color}"` : ''}>
<a class="skip" href="#content">Skip to content</a>
<header class="top"><div class="in">
<span class="merchant-logo" aria-hidden="true">${initial}</span>
<span class="merchant-name">${brandName}</span>
${o.sandbox ? html`<span class="env-badge" title="Test mode: no real money moves">Sandbox</span>` : ''}
<span class="secure"><svg aria-hidden="true" width="14" height="14" viewBox="0 0 24 24" fill="currentColor"><path d="M12 2a5 5 0 0 0-5 5v3H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8a2 2 0 0 0-2-2h-1V7a5 5 0 0 0-5-5zm-3 8V7a3 3 0 1 1 6 0v3H9z"/></svg>${o.secureLabel ?? `Secure ${o.bank ? 'bank login' : 'checkout'}`}</span>
</div></header>
<main id="content">
${o.body}
</main>
<footer>${o.footer ?? (o.bank ? 'Sandbox bank simulator: no real money moves.' : html`Payment page for ${o.merchantName}.`)}</footer>
</body>
</html>`.value;
}

/**
 * The payment's reference as the payer sees it on the checkout and at the bank: the payment
 * network's `ref_id` of the current session (the transaction's `ref_id`, docs/guides/payments.md), one rendering for both.
 */
export function referenceFact(refId: string): SafeHtml {
  return html`<dt>Payment reference</dt><dd class="ident">${evenlyBreakable(refId)}</dd>`;
}

/**
 * An identifier that stays whole when it fits and otherwise breaks only between equal parts of at
 * most 12 characters (`ref_SaBwQ-` / `ho4lI3WZro`), never leaving one character alone on a line.
 * `<wbr>` adds no character: the identifier still copies as one string.
 */
export function evenlyBreakable(id: string): SafeHtml {
  const parts = Math.max(1, Math.ceil(id.length / 12));
  const size = Math.ceil(id.length / parts);
  const chunks: SafeHtml[] = [];
  for (let i = 0; i < id.length; i += size)
    chunks.push(html`<span class="nobr">${id.slice(i, i + size)}</span>`);
  return html`${chunks.map((c, i) => (i === 0 ? c : html`<wbr>${c}`))}`;
}

/**
 * "€1,250.00" from the decimal string: Intl.NumberFormat formats the string itself, exactly (it is
 * never turned into a Number), with at least the currency's decimals and every decimal it has.
 */
export function formatMoney(amount: string, currency: string): string {
  try {
    const minor = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits;
    const decimals = amount.split('.')[1]?.length ?? 0;
    const format = new Intl.NumberFormat('en', {
      style: 'currency',
      currency,
      maximumFractionDigits: Math.max(minor ?? 2, decimals),
    });
    // A decimal string is formatted exactly (ECMA-402 "Intl.NumberFormat v3"); the cast is for the types.
    return format.format(amount as unknown as number);
  } catch {
    return `${currency} ${amount}`; // not a currency code Intl knows
  }
}

/** A limit's or a schedule's period as a payer reads it after the amount: "per month", "per half year". */
export function perPeriod(period: string): string {
  return `per ${period.replace(/_/g, ' ')}`;
}

/** A calendar date (`YYYY-MM-DD` or a Date) as "15 January 2026" (UTC). */
export function formatDay(day: string | Date): string {
  const d = typeof day === 'string' ? new Date(`${day.slice(0, 10)}T00:00:00Z`) : day;
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(d);
}

export function formatDate(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
