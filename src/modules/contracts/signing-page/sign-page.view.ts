/** Server-rendered HTML of the hosted signing page. Every interpolated value is escaped by `html`. */

import { layout } from '../../../platform/pages/layout';
import { html, raw, type SafeHtml } from '../../../shared/html';
import type { RequestFieldView, SignDocument } from './sign-page.service';

const CSS = raw(`<style>
main.sign{grid-template-columns:minmax(0,1.5fr) minmax(0,1fr)}
@media (max-width:760px){main.sign{grid-template-columns:1fr}}
.doc-head{display:flex;justify-content:space-between;align-items:center;gap:.5rem;margin-bottom:.75rem;flex-wrap:wrap}
.doc-head a{font-size:.875rem}
.sheet{position:relative;background:#fff;border:1px solid var(--line);border-radius:6px;box-shadow:0 2px 6px rgba(16,24,40,.08);margin:0 auto 1rem;width:100%;overflow:hidden}
.sheet .pno{position:absolute;right:.5rem;bottom:.35rem;font-size:.75rem;color:var(--muted)}
.sheet .lines{position:absolute;inset:8% 10%;background:repeating-linear-gradient(#fff 0 14px,#eef1f6 14px 16px);opacity:.8}
.fbox{position:absolute;border:2px dashed var(--brand);background:rgba(47,74,208,.08);border-radius:4px;font-size:.7rem;color:var(--brand-d);padding:1px 3px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.fbox.signature{border-style:solid;background:rgba(255,214,0,.18);border-color:#c99700;color:#6b4b00}
iframe.pdf{width:100%;height:520px;border:1px solid var(--line);border-radius:8px;background:#fff}
@media (max-width:760px){iframe.pdf{height:360px}}
.steps{display:flex;gap:.4rem;flex-wrap:wrap;margin:0 0 1rem;padding:0;list-style:none;font-size:.8125rem}
.steps li{padding:.2rem .6rem;border-radius:999px;background:#eef1f6;color:var(--muted)}
.steps li.on{background:var(--brand);color:#fff}
.inp{display:grid;gap:.3rem;margin-bottom:.9rem}.inp label{font-weight:600;font-size:.9375rem}
.inp input[type=text],.inp input[type=email],.inp textarea{font:inherit;padding:.65rem .75rem;border:1px solid var(--line);border-radius:10px;width:100%}
.inp input.sig{font-family:"Brush Script MT","Segoe Script",cursive;font-size:1.5rem}
.chk{display:flex;gap:.5rem;align-items:flex-start;margin-bottom:.9rem}
details.decline{margin-top:1rem;border-top:1px solid var(--line);padding-top:1rem}
details.decline summary{cursor:pointer;color:var(--bad);font-weight:600}
.who{font-size:.9375rem;color:var(--muted);margin:0 0 1rem}
</style>`);

export interface SignPageView {
  merchantName: string;
  title: string;
  token: string;
  name: string;
  email: string;
  role: string;
  message: string | null;
  documents: SignDocument[];
  readOnly: boolean;
  /** A viewer of a request whose signing a vendor hosts (read-only; the sealed documents once completed). */
  viewer?: { sealed: boolean };
  error?: string | null;
  sandbox: boolean;
}

function page(o: { title: string; merchantName: string; body: SafeHtml; main?: string }) {
  const out = layout({
    title: o.title,
    merchantName: o.merchantName,
    body: o.body,
    secureLabel: 'Secure signing',
    footer: `Electronic signature requested by ${o.merchantName}. Every action is recorded in an audit trail.`,
  });
  return out.replace('<main id="content">', `${CSS.value}<main id="content" class="${o.main ?? 'sign'}">`);
}

function sheets(token: string, d: SignDocument): SafeHtml {
  return html`${d.pages.map((p, i) => {
    const fields = d.fields.filter((f) => f.page === i + 1);
    return html`<div class="sheet" style="aspect-ratio:${Math.round(p.width)}/${Math.round(p.height)}" aria-label="Page ${i + 1} of ${d.pages.length}">
<div class="lines"></div>
${fields.map((f) => html`<div class="fbox ${f.type}" style="left:${pct(f.x)};top:${pct(f.y)};width:${pct(f.width)};height:${pct(f.height)}">${f.label ?? f.type.replace('_', ' ')}</div>`)}
<span class="pno">${i + 1} / ${d.pages.length}</span></div>`;
  })}
<iframe class="pdf" title="${d.fileName}" src="/sign/${token}/documents/${d.id}"></iframe>`;
}

const pct = (n: number) => `${(n * 100).toFixed(3)}%`;

function fieldInput(f: RequestFieldView, v: SignPageView): SafeHtml {
  const id = `f_${f.field_id}`;
  const label =
    f.label ??
    {
      signature: 'Signature',
      initials: 'Initials',
      name: 'Full name',
      email: 'Email',
      date_signed: 'Date signed',
      text: 'Text',
      checkbox: 'I agree',
    }[f.type] ??
    f.type;
  const req = f.required ? raw(' required') : '';
  switch (f.type) {
    case 'date_signed':
      return html`<p class="who">${label}: filled in automatically when you sign.</p>`;
    case 'checkbox':
      return html`<label class="chk"><input type="checkbox" name="${id}" value="true"${req}> <span>${label}</span></label>`;
    case 'signature':
      return html`<div class="inp"><label for="${id}">${label} <small>(type your full name)</small></label><input class="sig" type="text" id="${id}" name="${id}" maxlength="200" value="${v.name}" autocomplete="name"${req}></div>`;
    case 'initials':
      return html`<div class="inp"><label for="${id}">${label}</label><input type="text" id="${id}" name="${id}" maxlength="10" value="${v.name
        .split(/\s+/)
        .map((w) => w[0] ?? '')
        .join('')
        .toUpperCase()}"${req}></div>`;
    case 'name':
      return html`<div class="inp"><label for="${id}">${label}</label><input type="text" id="${id}" name="${id}" maxlength="200" value="${v.name}"${req}></div>`;
    case 'email':
      return html`<div class="inp"><label for="${id}">${label}</label><input type="email" id="${id}" name="${id}" maxlength="254" value="${v.email}"${req}></div>`;
    default:
      return html`<div class="inp"><label for="${id}">${label}</label><input type="text" id="${id}" name="${id}" maxlength="1000" value="${f.prefill ?? ''}"${req}></div>`;
  }
}

export function signPage(v: SignPageView): string {
  const fields = v.documents.flatMap((d) => d.fields);
  const panel = v.viewer
    ? html`<section class="card" aria-labelledby="act"><h2 id="act">View only</h2><p class="who">${v.name} · ${v.email} · role ${v.role}</p>
<p class="lead">${v.viewer.sealed ? 'Everyone has signed. The signed document is shown here; open it to download it.' : 'You can read the document. Nothing is asked of you: the signers sign through their own links, and you receive the signed document once everyone has signed.'}</p></section>`
    : v.readOnly
      ? html`<section class="card"><h2>View only</h2><p class="lead">You are copied on this request. Participants sign through their own links.</p></section>`
      : html`<section class="card" aria-labelledby="act"><ol class="steps"><li>Verify</li><li class="on">Review</li><li>Sign</li></ol>
<h2 id="act">Sign as ${v.name}</h2><p class="who">${v.email} · role ${v.role}</p>
${v.error ? html`<div class="alert alert-error" role="alert">${v.error}</div>` : ''}
${v.sandbox ? html`<div class="sandbox-note">Sandbox: no legally binding signature is created.</div>` : ''}
<form method="post" action="/sign/${v.token}" class="stack"><input type="hidden" name="action" value="sign">
${fields.map((f) => fieldInput(f, v))}
<p class="fine">By selecting Sign, you agree that your typed name is your electronic signature on this document.</p>
<button class="btn btn-primary" type="submit">Sign</button></form>
<details class="decline"><summary>Decline to sign</summary>
<form method="post" action="/sign/${v.token}" class="stack"><input type="hidden" name="action" value="decline">
<div class="inp"><label for="reason">Reason (optional)</label><textarea id="reason" name="reason" maxlength="500" rows="3"></textarea></div>
<button class="btn btn-danger" type="submit">Decline</button></form></details></section>`;
  const body = html`<section class="card" aria-labelledby="doc"><div class="doc-head"><div><h1 id="doc">${v.title}</h1>
<p class="label">From ${v.merchantName}</p></div></div>
${v.message ? html`<div class="alert alert-info">${v.message}</div>` : ''}
${v.documents.map((d) => html`<h2>${d.fileName} <a href="/sign/${v.token}/documents/${d.id}" target="_blank" rel="noopener">Open PDF</a></h2>${sheets(v.token, d)}`)}
</section>${panel}`;
  return page({ title: v.title, merchantName: v.merchantName, body });
}

export function otpPage(v: {
  merchantName: string;
  title: string;
  token: string;
  email: string;
  sent: boolean;
  error?: string | null;
}): string {
  const body = html`<section class="card result"><ol class="steps"><li class="on">Verify</li><li>Review</li><li>Sign</li></ol>
<h1>Confirm it is you</h1><p class="lead">"${v.title}" from ${v.merchantName} is protected. We email a 6-digit code to ${v.email}.</p>
${v.error ? html`<div class="alert alert-error" role="alert">${v.error}</div>` : ''}
${
  v.sent
    ? html`<form method="post" action="/sign/${v.token}" class="stack"><input type="hidden" name="action" value="verify_otp">
<div class="inp"><label for="code">Code</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required></div>
<button class="btn btn-primary" type="submit">Continue</button></form>`
    : ''
}
<form method="post" action="/sign/${v.token}" class="stack"><input type="hidden" name="action" value="send_otp">
<button class="btn ${v.sent ? 'btn-link' : 'btn-primary'}" type="submit">${v.sent ? 'Send a new code' : 'Email me a code'}</button></form></section>`;
  return page({ title: v.title, merchantName: v.merchantName, body, main: 'sign result-only' });
}

export function messagePage(
  merchantName: string,
  title: string,
  heading: string,
  text: string,
  icon: 'success' | 'failed' | 'pending' | 'expired',
): string {
  const symbol = { success: '✓', failed: '✕', pending: '…', expired: '!' }[icon];
  const body = html`<section class="card result"><div class="icon ${icon}" aria-hidden="true">${symbol}</div><h1>${heading}</h1><p class="lead">${text}</p></section>`;
  return page({ title, merchantName, body });
}
