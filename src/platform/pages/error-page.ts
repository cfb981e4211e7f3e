/** The error page of every hosted page (an unknown or spent link, a refused action). */
import { html } from '../../shared/html';
import { layout } from './layout';

/** An error page; without a known merchant (e.g. an unknown link) it names none. */
export function errorPage(
  title: string,
  message: string,
  merchantName?: string,
  opts: { sandbox?: boolean } = {},
): string {
  const body = html`<section class="card result" aria-labelledby="err-h">
<div class="icon failed" aria-hidden="true">!</div>
<h1 id="err-h">${title}</h1>
<p class="lead" role="alert">${message}</p>
</section>`;
  if (merchantName) return layout({ title, merchantName, body, sandbox: opts.sandbox });
  return layout({
    title,
    merchantName: 'Secure payment',
    body,
    footer: 'No payment was made.',
    sandbox: opts.sandbox,
  });
}
