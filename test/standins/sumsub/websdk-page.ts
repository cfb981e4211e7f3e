/** The stand-in's WebSDK page: what the person sees at a WebSDK external link, with a tester's choice of outcome. */
import type { Applicant } from './applicants';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}
button{display:block;width:100%;margin:.5rem 0;padding:.6rem;font-size:1rem}</style></head>
<body><p><strong>Sumsub WebSDK (stand-in)</strong></p>${body}</body></html>`;
}

export function websdkPage(a: Applicant, steps: string[]): string {
  const r = a.review;
  if (r.reviewStatus === 'completed' && r.reviewResult?.reviewRejectType === 'FINAL')
    return layout(
      'Verification rejected',
      `<h1>Verification rejected</h1><p>${esc(r.reviewResult.moderationComment ?? 'Your verification was rejected.')}</p>
<p>This decision is final.</p>`,
    );
  if (r.reviewStatus === 'completed' && r.reviewResult?.reviewAnswer === 'GREEN')
    return layout('Verified', '<h1>You are verified</h1><p>Nothing more is needed.</p>');
  const retry =
    r.reviewStatus === 'completed' && r.reviewResult?.reviewRejectType === 'RETRY'
      ? `<p role="alert">${esc(r.reviewResult.moderationComment ?? 'Please upload your documents again.')}</p>`
      : '';
  return layout(
    'Verify your identity',
    `<h1>Verify your identity</h1>${retry}
<p>Level <code>${esc(r.levelName)}</code>: ${steps.map(esc).join(', ')}.</p>
<form method="post">
<p>Uploading sample documents for each step. Tester: choose the review outcome.</p>
<label><input type="checkbox" name="aml" value="on"> AML match (screening hits: a rejection adds PEP and SANCTIONS labels; an approval means an officer cleared them)</label>
<button name="decision" value="approve">Submit and approve (GREEN)</button>
<button name="decision" value="reject_retry">Submit and reject, may retry (RED, RETRY)</button>
<button name="decision" value="reject_final">Submit and reject for good (RED, FINAL)</button>
<button name="decision" value="review">Submit and leave in review</button>
</form>`,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<h1>${esc(title)}</h1><p>${esc(text)}</p>`);
}
