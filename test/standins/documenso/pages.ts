/** The stand-in's signing page: the document's fields for this recipient, Sign, or Reject with a reason. */
import type { Envelope, Recipient } from './store';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
label{display:block;margin:.6rem 0}input,textarea{width:100%;padding:.4rem;font-size:1rem;box-sizing:border-box}
button{display:block;width:100%;margin:.5rem 0;padding:.6rem;font-size:1rem}</style></head>
<body><p><strong>Documenso (stand-in)</strong></p>${body}</body></html>`;
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<h1>${esc(title)}</h1><p>${esc(text)}</p>`);
}

const ACTION: Record<string, string> = { SIGNER: 'Sign', APPROVER: 'Approve', VIEWER: 'Mark as viewed' };

export function signingPage(e: Envelope, r: Recipient, canAct: boolean): string {
  if (r.signingStatus === 'SIGNED')
    return layout('Document signed', `<h1>Document signed</h1><p>You have completed "${esc(e.title)}".</p>`);
  if (r.signingStatus === 'REJECTED' || e.status === 'REJECTED')
    return layout('Document rejected', `<h1>Document rejected</h1><p>"${esc(e.title)}" was rejected.</p>`);
  if (e.status === 'CANCELLED')
    return layout('Document cancelled', `<h1>Document cancelled</h1><p>"${esc(e.title)}" was cancelled.</p>`);
  if (!canAct)
    return layout('Waiting for others', `<h1>Waiting for others</h1><p>It is not your turn yet.</p>`);
  const inputs = e.fields
    .filter((f) => f.recipientId === r.id && ['SIGNATURE', 'INITIALS', 'TEXT'].includes(f.type))
    .map((f) => {
      const meta = f.fieldMeta ?? {};
      const label = typeof meta.label === 'string' ? meta.label : f.type.toLowerCase();
      const preset = typeof meta.text === 'string' ? meta.text : '';
      const readOnly = meta.readOnly === true ? ' readonly' : '';
      return `<label>${esc(label)} (page ${f.page})<input name="field_${f.id}" value="${esc(preset)}"${readOnly}></label>`;
    })
    .join('\n');
  const verb = ACTION[r.role] ?? 'Sign';
  return layout(
    e.title,
    `<h1>${esc(e.title)}</h1><p>${esc(r.name)} &lt;${esc(r.email)}&gt;, ${esc(r.role.toLowerCase())}</p>
<form method="post"><input type="hidden" name="action" value="sign">${inputs}
<button type="submit">${verb}</button></form>
<form method="post"><input type="hidden" name="action" value="reject">
<label>Reason for rejecting<textarea name="reason" rows="2"></textarea></label>
<button type="submit">Reject</button></form>`,
  );
}
