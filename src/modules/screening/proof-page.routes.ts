/**
 * The hosted wallet proof page `{SVC_PUBLIC_URL}/wallet-proof/{token}` (docs/guides/screening.md):
 * sign the challenge (EIP-191 / ed25519, verified locally), start a Satoshi test and report it sent,
 * or declare ownership, when the request allows each method. In sandbox it also offers
 * "Sign with the sandbox test key" for the published test address: that signature is real.
 * Unknown token: 404; expired: 410.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { AppError } from '../../shared/errors';
import { FAVICON_LINKS, html, type SafeHtml } from '../../shared/html';
import { sendHtmlPage } from '../../shared/html-page';
import type { OwnershipRow } from './ownership.machine';
import { findOwnershipByToken } from './ownership.repo';
import { applyProof, screenDeclarant } from './ownership.service';
import { reportSandboxDeposit } from './ownership-deposits.service';
import { SANDBOX_TEST_ADDRESS, SANDBOX_TEST_PRIVATE_KEY, signEip191 } from './signatures.policy';

const TokenParams = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }) });

function layout(title: string, body: SafeHtml) {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${FAVICON_LINKS}
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
code,textarea{font-family:ui-monospace,monospace;word-break:break-all}textarea{width:100%}
section{border:1px solid #ccc;border-radius:.5rem;padding:1rem;margin:1rem 0}.error{color:#a00}</style></head>
<body><h1>${title}</h1>${body}</body></html>`.value;
}

function proofPage(deps: Deps, r: OwnershipRow, error?: string) {
  const has = (m: string) => r.methods.includes(m);
  const sandbox = deps.config.environment === 'sandbox';
  const testKey = sandbox && r.address.toLowerCase() === SANDBOX_TEST_ADDRESS && r.chain !== 'solana';
  const s = r.satoshiTest;
  const body =
    r.status === 'verifying' && s
      ? html`<section id="satoshi"><h2>Satoshi test</h2>
<p>Send exactly <strong id="amount">${s.amount} ${s.asset}</strong> from <code>${r.address}</code> to
<code id="deposit-address">${s.deposit_address}</code> before ${s.expires_at}.</p>
${sandbox ? html`<form method="post"><input type="hidden" name="action" value="sent"><button type="submit">I sent it</button></form>` : html`<p>This page updates once the deposit is seen on chain.</p>`}</section>`
      : html`<p>Prove that you control <code id="address">${r.address}</code> on ${r.chain}.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
${
  has('message_signing')
    ? html`<section id="signing"><h2>Sign a message</h2><p>Sign this exact message with your wallet:</p>
<pre id="challenge"><code>${r.challengeMessage}</code></pre>
<form method="post"><input type="hidden" name="action" value="sign">
<label>Signature<br><textarea name="signature" rows="3" required></textarea></label>
<button type="submit">Submit signature</button></form>
${testKey ? html`<form method="post"><input type="hidden" name="action" value="sandbox_sign"><button type="submit">Sign with the sandbox test key</button></form>` : ''}
<p>${r.attemptsRemaining} attempts remaining.</p></section>`
    : ''
}
${
  has('satoshi_test')
    ? html`<section><h2>Satoshi test</h2><p>Send a tiny, random amount from this wallet.</p>
<form method="post"><input type="hidden" name="action" value="satoshi"><button type="submit">Start the Satoshi test</button></form></section>`
    : ''
}
${
  has('self_declaration')
    ? html`<section><h2>Declare ownership</h2><form method="post"><input type="hidden" name="action" value="declare">
<label>Your full name <input name="declarant_name" required maxlength="200"></label>
<button type="submit">I declare that I control this wallet</button></form></section>`
    : ''
}`;
  return layout('Prove wallet ownership', body);
}

const resultPage = (r: OwnershipRow) =>
  layout(
    r.status === 'verified' ? 'Wallet verified' : `Request ${r.status}`,
    html`<p id="result" data-status="${r.status}">${r.status === 'verified' ? 'Thank you, your wallet ownership is confirmed.' : (r.failureReason ?? `This request is ${r.status}.`)}</p>`,
  );

const notFoundPage = () => layout('Link not found', html`<p>This link is not valid.</p>`);
const expiredPage = () => layout('Link expired', html`<p>This link has expired. Ask for a new one.</p>`);

async function load(deps: Deps, token: string, reply: FastifyReply) {
  const r = await findOwnershipByToken(deps.db, token);
  if (!r) return { reply: sendHtmlPage(reply, 404, notFoundPage()) };
  if (
    r.status === 'expired' ||
    (r.expiresAt <= deps.clock.now() && ['pending', 'verifying'].includes(r.status))
  )
    return { reply: sendHtmlPage(reply, 410, expiredPage()) };
  return { row: r };
}

function finish(deps: Deps, reply: FastifyReply, r: OwnershipRow) {
  if (['pending', 'verifying'].includes(r.status)) return sendHtmlPage(reply, 200, proofPage(deps, r));
  if (r.redirectUrl && r.status === 'verified') {
    const u = new URL(r.redirectUrl);
    u.searchParams.set('request_id', r.id);
    return reply.redirect(u.toString(), 303);
  }
  return sendHtmlPage(reply, 200, resultPage(r));
}

export async function walletProofPageRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  app.get(
    '/wallet-proof/:token',
    { config: { auth: 'public' }, schema: { hide: true, params: TokenParams }, attachValidation: true },
    async (request, reply) => {
      if (request.validationError) return sendHtmlPage(reply, 404, notFoundPage());
      const l = await load(deps, (request.params as { token: string }).token, reply);
      if (!l.row) return l.reply;
      return finish(deps, reply, l.row);
    },
  );

  app.post(
    '/wallet-proof/:token',
    {
      config: { auth: 'public' },
      schema: {
        hide: true,
        params: TokenParams,
        body: Type.Object(
          { action: Type.Optional(Type.String({ maxLength: 20 })) },
          { additionalProperties: true },
        ),
      },
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError?.validationContext === 'params')
        return sendHtmlPage(reply, 404, notFoundPage());
      const token = (request.params as { token: string }).token;
      const l = await load(deps, token, reply);
      if (!l.row) return l.reply;
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      try {
        if (form.action === 'sent') {
          if (l.row.status === 'verifying' && deps.providers.screening.sandbox)
            await reportSandboxDeposit(deps, l.row, true);
        } else {
          const input =
            form.action === 'declare'
              ? { method: 'self_declaration' as const, declarant_name: form.declarant_name }
              : form.action === 'satoshi'
                ? { method: 'satoshi_test' as const }
                : {
                    method: 'message_signing' as const,
                    signature:
                      form.action === 'sandbox_sign' && deps.config.environment === 'sandbox'
                        ? signEip191(l.row.challengeMessage, SANDBOX_TEST_PRIVATE_KEY)
                        : form.signature,
                  };
          const declarantMatches = await screenDeclarant(deps, input);
          const res = await deps.db.transaction(async (tx) => {
            const locked = (await findOwnershipByToken(tx, token, true))!;
            return applyProof(deps, tx, locked, { ...input, declarantMatches });
          });
          if (res.invalid && res.row.status === 'pending')
            return sendHtmlPage(reply, 400, proofPage(deps, res.row, 'Invalid signature'));
        }
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
        const current = (await findOwnershipByToken(deps.db, token))!;
        const msg = Array.isArray(err.detail) ? 'Please fill in the form.' : String(err.detail);
        return sendHtmlPage(reply, 400, proofPage(deps, current, msg));
      }
      return finish(deps, reply, (await findOwnershipByToken(deps.db, token))!);
    },
  );
}
