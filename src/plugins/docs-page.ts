/**
 * The API reference pages: /docs (the merchant API, /api/v1/openapi.json) and /docs/staff (the staff
 * document, /api/v1/admin/openapi.json), rendered in the browser by Scalar's standalone bundle.
 *
 * The bundle is the one @scalar/fastify-api-reference ships (pinned to the last release whose
 * engines allow Node 20); we serve it from our own routes instead of registering that plugin so the
 * page keeps a strict CSP: no inline script, nothing loaded from another origin (no CDN, no web
 * fonts), requests ("Try it") only to this service.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { FAVICON_LINKS, html } from '../shared/html';

const DOCS = {
  '/docs': { title: 'Payments Platform API reference', spec: '/api/v1/openapi.json' },
  '/docs/staff': { title: 'Payments Platform staff API reference', spec: '/api/v1/admin/openapi.json' },
} as const;

/** Scalar's configuration, read from the script tag's data attributes (no inline script under the CSP). */
const INIT_JS = `(function () {
  var s = document.currentScript;
  window.Scalar.createApiReference('#app', {
    url: s.dataset.url,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    showDeveloperTools: 'never',
    documentDownloadType: 'direct',
  });
})();
`;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Scalar injects its stylesheet and theme as <style> elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function loadBundle(): string {
  const require = createRequire(import.meta.url);
  // The package exports only its plugin entry (dist/index.js); the bundle sits beside it.
  const entry = require.resolve('@scalar/fastify-api-reference');
  return fs.readFileSync(path.join(path.dirname(entry), 'js', 'standalone.js'), 'utf8');
}

function page(title: string, spec: string): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${FAVICON_LINKS}
<link rel="stylesheet" href="/docs/assets/guides.css">
</head>
<body>
<nav class="docs-bar" aria-label="Documentation"><a href="/docs/guides">Guides</a><a href="/docs">API reference</a></nav>
<noscript>This page needs JavaScript. The OpenAPI document is at <a href="${spec}">${spec}</a>.</noscript>
<div id="app"><p class="docs-loading" role="status">Loading the API reference… The OpenAPI document is also at <a href="${spec}">${spec}</a>; the <a href="/docs/guides">guides</a> open at once.</p></div>
<script src="/docs/assets/scalar.js"></script>
<script src="/docs/assets/init.js" data-url="${spec}"></script>
</body>
</html>`.value;
}

const sendAsset = (reply: FastifyReply, type: string, body: string) =>
  reply
    .header('content-type', `${type}; charset=utf-8`)
    .header('cache-control', 'public, max-age=3600')
    .header('x-content-type-options', 'nosniff')
    .send(body);

export async function docsPages(app: FastifyInstance) {
  let bundle: string | null = null;
  const opts = { schema: { hide: true }, config: { auth: 'public' as const } };
  for (const [url, d] of Object.entries(DOCS)) {
    const body = page(d.title, d.spec);
    app.get(url, opts, async (_req, reply) =>
      reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', CSP)
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'no-referrer')
        .send(body),
    );
  }
  app.get('/docs/assets/scalar.js', opts, async (_req, reply) => {
    bundle ??= loadBundle();
    return sendAsset(reply, 'text/javascript', bundle);
  });
  app.get('/docs/assets/init.js', opts, async (_req, reply) => sendAsset(reply, 'text/javascript', INIT_JS));
}
