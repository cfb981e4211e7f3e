/** The single stylesheet of the hosted checkout and the sandbox bank pages (served at /checkout/assets/checkout.css). */
export const CHECKOUT_CSS = `
:root{--bg:#f4f6fa;--card:#fff;--text:#1a2233;--muted:#5b6578;--line:#dfe3ea;--brand:#2f4ad0;--brand-d:#2238a8;
--ok:#137a43;--bad:#b3261e;--warn:#8a5a00;--radius:12px;--focus:0 0 0 3px rgba(47,74,208,.45)}
*{box-sizing:border-box}
html{font-size:100%}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
overflow-wrap:break-word;hyphens:manual}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:10}
header.top{background:var(--card);border-bottom:1px solid var(--line)}
header.top .in{max-width:960px;margin:0 auto;padding:.9rem 1.25rem;display:flex;align-items:center;gap:.6rem}
.merchant-logo{flex:none;width:34px;height:34px;border-radius:8px;background:var(--brand);color:#fff;display:grid;place-items:center;font-weight:700}
.merchant-name{font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0}
.env-badge{flex:none;background:#fff4d6;color:#6b4b00;border:1px solid #f1dca6;border-radius:999px;padding:.05rem .55rem;
font-size:.75rem;font-weight:700;letter-spacing:.03em;text-transform:uppercase}
.secure{margin-left:auto;color:var(--muted);font-size:.875rem;display:flex;align-items:center;gap:.35rem;white-space:nowrap;flex:none}
main{max-width:960px;margin:0 auto;padding:1.5rem 1.25rem 3rem;display:grid;gap:1.5rem;align-items:start;grid-template-columns:minmax(0,1fr) minmax(0,1.3fr)}
@media (max-width:760px){main{grid-template-columns:1fr;padding:1rem}}
.card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:1.5rem;box-shadow:0 1px 2px rgba(16,24,40,.04)}
.summary .label{color:var(--muted);font-size:.875rem;margin:0}.summary .label+dl.facts{margin-top:1rem}
.amount{font-size:2.25rem;font-weight:700;letter-spacing:-.02em;margin:.15rem 0 1rem}
.amount .per{font-size:1.125rem;font-weight:600;letter-spacing:0;color:var(--muted);white-space:nowrap}
dl.facts{margin:0;display:grid;grid-template-columns:auto minmax(0,1fr);gap:.45rem 1rem;font-size:.9375rem}
dl.facts dt{color:var(--muted);text-align:left}dl.facts dd{margin:0;text-align:right;min-width:0}
/* Identifiers (references, IBANs) have no spaces: they may break anywhere, only where they must, never hyphenated.
   A reference comes as equal nowrap parts joined by <wbr> (evenlyBreakable): whole, or broken evenly. */
.ident{overflow-wrap:anywhere;word-break:normal;hyphens:none;font-variant-numeric:tabular-nums;letter-spacing:.01em}
.nobr{white-space:nowrap}
@media (max-width:480px){dl.facts{grid-template-columns:minmax(0,1fr);gap:.1rem}dl.facts dd{text-align:left;margin-bottom:.5rem}
.card{padding:1.25rem}header.top .in{padding:.75rem 1rem}}
h1{font-size:1.375rem;margin:0 0 .25rem}h2{font-size:1.125rem;margin:0 0 1rem}
p.lead{color:var(--muted);margin:0 0 1.25rem}
fieldset{border:0;margin:0 0 1.25rem;padding:0}
legend{font-weight:600;margin-bottom:.6rem}
.bank{display:flex;align-items:center;gap:.85rem;border:1px solid var(--line);border-radius:10px;padding:.85rem 1rem;margin-bottom:.6rem;cursor:pointer;background:#fff}
.bank:hover{border-color:#b8c1d6}
.bank input{width:1.15rem;height:1.15rem;accent-color:var(--brand);margin:0}
.bank:has(input:checked){border-color:var(--brand);box-shadow:inset 0 0 0 1px var(--brand);background:#f6f8ff}
.bank .logo{width:36px;height:36px;border-radius:50%;display:grid;place-items:center;font-weight:700;color:#fff;flex:none}
.bank .txt{display:flex;flex-direction:column;min-width:0}.bank .txt small{color:var(--muted)}
.btn{display:inline-flex;justify-content:center;align-items:center;gap:.4rem;width:100%;border:1px solid transparent;border-radius:10px;
padding:.8rem 1rem;font:inherit;font-weight:600;cursor:pointer;text-decoration:none;min-height:44px}
.btn-primary{background:var(--brand);color:#fff}.btn-primary:hover{background:var(--brand-d)}
.btn-secondary{background:#fff;color:var(--text);border-color:var(--line)}.btn-secondary:hover{background:#f7f8fb}
.btn-danger{background:#fff;color:var(--bad);border-color:#e8c4c1}.btn-danger:hover{background:#fdf3f2}
.btn-link{background:none;border:0;color:var(--muted);text-decoration:underline;width:auto;padding:.5rem;font-weight:500}
.stack{display:grid;gap:.6rem}
a:focus-visible,button:focus-visible,input:focus-visible,.bank:focus-within{outline:none;box-shadow:var(--focus)}
.alert{border-radius:10px;padding:.8rem 1rem;margin-bottom:1rem;border:1px solid}
.alert-error{background:#fdf3f2;border-color:#f0c6c2;color:var(--bad)}
.alert-info{background:#f2f5ff;border-color:#cdd6fb;color:#22318a}
.result{text-align:center;grid-column:1/-1;max-width:520px;margin:0 auto;width:100%}
.result .icon{width:64px;height:64px;border-radius:50%;display:grid;place-items:center;margin:0 auto 1rem;font-size:2rem;color:#fff}
.icon.success{background:var(--ok)}.icon.failed,.icon.canceled{background:var(--bad)}.icon.expired{background:var(--warn)}.icon.processing,.icon.pending{background:var(--brand)}
.fine{color:var(--muted);font-size:.8125rem;margin-top:1rem}
.bankpage header.top{background:var(--bank,#0d5c4a);color:#fff;border:0}.bankpage header.top .secure{color:#e3f1ec}
.bankpage .merchant-logo{background:#fff;color:var(--bank,#0d5c4a)}
.bankpage .btn-primary{background:var(--bank,#0d5c4a)}.bankpage .btn-primary:hover{filter:brightness(.92)}
.sandbox-note{background:#fff8e6;border:1px solid #f1dca6;color:#6b4b00;border-radius:10px;padding:.6rem .9rem;font-size:.875rem;margin-bottom:1rem}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.checks .bank input[type=checkbox]{width:1.15rem;height:1.15rem;accent-color:var(--brand);margin:0}
.checks .bank:has(input:checked){border-color:var(--brand);background:#f6f8ff}
.field{display:grid;gap:.35rem;margin:0 0 1.25rem}.field label{font-weight:600}
.field input{font:inherit;padding:.6rem .75rem;border:1px solid var(--line);border-radius:10px;max-width:10rem}
.field small{color:var(--muted)}
.icon.approved{background:var(--ok)}.icon.declined{background:var(--bad)}.icon.in_review{background:var(--brand)}
footer{text-align:center;color:var(--muted);font-size:.8125rem;padding-bottom:2rem}
.consent-toggle .consent-plain{display:none}
@supports selector(:has(*)){
.consent-toggle .consent-plain{display:block}
form:has(input[data-refund-account]:checked) .consent-toggle .consent-plain{display:none}
form:not(:has(input[data-refund-account]:checked)) .consent-toggle .consent-ra{display:none}
}
`;
