/**
 * The redirect back to the merchant after checkout: `transaction_id` is appended to the client's
 * callback_url, the existing query string (and fragment) kept; an existing `transaction_id` wins.
 */
export function buildCallbackRedirect(callbackUrl: string, transactionId: string): string {
  const u = new URL(callbackUrl);
  if (u.searchParams.has('transaction_id')) return u.toString();
  const hash = u.hash;
  u.hash = '';
  let base = u.toString();
  if (base.endsWith('?')) base = base.slice(0, -1);
  const sep = u.search === '' ? '?' : '&';
  return `${base}${sep}transaction_id=${encodeURIComponent(transactionId)}${hash}`;
}
