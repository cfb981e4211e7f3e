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
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FAVICON_LINKS, html, type SafeHtml } from '../shared/html';

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

/** The parts of an OpenAPI document the outline reads. */
export interface OutlineDoc {
  tags?: { name: string }[];
  paths: Record<string, Record<string, { summary?: string; tags?: string[] } | unknown>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Every operation by tag, in the document's tag order, as plain HTML: the page shows it at once,
 * while Scalar (3.5 MB) and the document load and render, and Scalar replaces it when ready.
 */
export function outlineOf(doc: OutlineDoc): SafeHtml {
  const byTag = new Map<string, { method: string; path: string; summary: string }[]>();
  for (const t of doc.tags ?? []) byTag.set(t.name, []);
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const m of METHODS) {
      const op = item[m] as { summary?: string; tags?: string[] } | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ method: m.toUpperCase(), path: p, summary: op.summary ?? '' });
    }
  }
  const sections = [...byTag].filter(([, ops]) => ops.length > 0);
  return html`<div class="docs-outline">${sections.map(
    ([tag, ops]) =>
      html`<section><h2>${tag}</h2><ul>${ops.map(
        (o) => html`<li><code>${o.method} ${o.path}</code> ${o.summary}</li>`,
      )}</ul></section>`,
  )}</div>`;
}

function page(title: string, spec: string, outline: SafeHtml | null): string {
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
<div id="app"><p class="docs-loading" role="status">Loading the interactive API reference… The OpenAPI document is also at <a href="${spec}">${spec}</a>; the <a href="/docs/guides">guides</a> open at once.${outline ? ' Meanwhile, every operation:' : ''}</p>${outline}</div>
<script src="/docs/assets/scalar.js"></script>
<script src="/docs/assets/init.js" data-url="${spec}"></script>
</body>
</html>`.value;
}

/**
 * A large, unchanging text body, compressed once (brotli and gzip, off the event loop on libuv's
 * pool) and sent in the encoding the client accepts.
 */
export class CompressedText {
  private br: Promise<Buffer> | null = null;
  private gz: Promise<Buffer> | null = null;
  constructor(readonly text: string) {}

  async send(req: FastifyRequest, reply: FastifyReply, type: string, cacheControl: string) {
    reply
      .header('content-type', `${type}; charset=utf-8`)
      .header('cache-control', cacheControl)
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff');
    const accepted = String(req.headers['accept-encoding'] ?? '');
    if (/\bbr\b/.test(accepted)) {
      this.br ??= brotli(this.text, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
      return reply.header('content-encoding', 'br').send(await this.br);
    }
    if (/\bgzip\b/.test(accepted)) {
      this.gz ??= gzip(this.text);
      return reply.header('content-encoding', 'gzip').send(await this.gz);
    }
    return reply.send(this.text);
  }
}

const brotli = promisify(zlib.brotliCompress) as (text: string, opts: zlib.BrotliOptions) => Promise<Buffer>;
const gzip = promisify(zlib.gzip) as (text: string) => Promise<Buffer>;

const ASSET_CACHE = 'public, max-age=3600';

/** `documentOf(spec)`: the OpenAPI document a page shows, for its outline. */
export async function docsPages(app: FastifyInstance, opts: { documentOf?: (spec: string) => OutlineDoc }) {
  let bundle: CompressedText | null = null;
  const init = new CompressedText(INIT_JS);
  const routeOpts = { schema: { hide: true }, config: { auth: 'public' as const } };
  for (const [url, d] of Object.entries(DOCS)) {
    let body: string | null = null;
    const bodyOf = () => {
      body ??= page(d.title, d.spec, opts.documentOf ? outlineOf(opts.documentOf(d.spec)) : null);
      return body;
    };
    app.get(url, routeOpts, async (_req, reply) =>
      reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', CSP)
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'no-referrer')
        .send(bodyOf()),
    );
  }
  app.get('/docs/assets/scalar.js', routeOpts, async (req, reply) => {
    bundle ??= new CompressedText(loadBundle());
    return bundle.send(req, reply, 'text/javascript', ASSET_CACHE);
  });
  app.get('/docs/assets/init.js', routeOpts, async (req, reply) =>
    init.send(req, reply, 'text/javascript', ASSET_CACHE),
  );
}
