/**
 * Serves the merchant dashboard (packages/dashboard, built by Vite) at /dashboard: hashed assets
 * with a one-year immutable cache, index.html revalidated every time and returned for every client
 * route (SPA fallback). Hidden from the OpenAPI documents: the dashboard is a client of the API, not
 * part of it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../deps';

/** Same relative path from src/modules/dashboard and from dist/modules/dashboard (dist mirrors src). */
export const DASHBOARD_DIST = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../packages/dashboard/dist',
);

export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

function hardened(reply: FastifyReply) {
  return reply
    .header('content-security-policy', DASHBOARD_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer');
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(file);
  } catch {
    return null;
  }
}

/**
 * Without SMTP_URL (a local try: production refuses to start without it) mail is written as files:
 * the page says where, so the emailed verification code can be found. A meta tag, not a script, so the
 * CSP stays strict.
 */
function withLocalMailHint(html: Buffer, mailDir: string | null): Buffer | string {
  if (!mailDir) return html;
  const escaped = mailDir.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return html
    .toString('utf8')
    .replace('</head>', `<meta name="svc-local-mail-dir" content="${escaped}" /></head>`);
}

export async function dashboardRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const root = DASHBOARD_DIST;
  const { config } = opts.deps;
  const localMailDir = config.smtpUrl ? null : path.join(config.dataDir, 'mail');

  async function sendIndex(reply: FastifyReply) {
    const file = await readOrNull(path.join(root, 'index.html'));
    const html = file ? withLocalMailHint(file, localMailDir) : null;
    if (!html)
      return hardened(reply)
        .status(503)
        .header('content-type', 'text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('The dashboard is not built. Run `npm run build`.');
    return hardened(reply)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(html);
  }

  const options = { config: { auth: 'public' }, schema: { hide: true } } as const;
  app.get('/dashboard', options, (_req, reply) => sendIndex(reply));
  app.get('/dashboard/*', options, async (request, reply) => {
    const rel = (request.params as { '*': string })['*'];
    if (rel.startsWith('assets/')) {
      const file = path.join(root, path.normalize(rel));
      const ext = path.extname(file);
      const body = file.startsWith(path.join(root, 'assets') + path.sep) ? await readOrNull(file) : null;
      if (!body || !TYPES[ext])
        return hardened(reply)
          .status(404)
          .header('content-type', 'text/plain; charset=utf-8')
          .send('Not found');
      return hardened(reply)
        .header('content-type', TYPES[ext])
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(body);
    }
    return sendIndex(reply);
  });
}
