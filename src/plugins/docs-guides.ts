/**
 * The guides (docs/guides/*.md, also readable on a code host) served as HTML at /docs/guides and
 * /docs/guides/<slug>, next to the API reference at /docs. markdown-it renders them once per process
 * (on the first request, then cached), with GitHub's heading slugs so `#anchors` written for the code
 * host work here too. Links between guides (`payments.md#rules`) become `/docs/guides/payments#rules`;
 * a link to another repository file (`../platform.md`) keeps its text but is not a link, since the
 * service does not serve the repository. Same strict CSP as the reference pages, and stricter: no
 * script at all, styles only from the service.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import anchor from 'markdown-it-anchor';
import { FAVICON_LINKS, html, raw, type SafeHtml } from '../shared/html';

/** Same relative path from src/plugins and from dist/plugins (dist mirrors src). */
export const GUIDES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/guides');

/** The order of the sidebar; guides not listed here follow in alphabetical order. */
const ORDER = [
  'index',
  'quickstart',
  'environments',
  'roles-permissions',
  'authentication',
  'idempotency',
  'pagination',
  'errors',
  'metadata',
  'webhooks',
  'payments',
  'refunds',
  'verification',
  'opcos-projects',
  'workflows',
  'contracts',
  'monitoring',
  'screening',
  'travel-rule',
  'recurring',
  'schedules',
  'bulk-links',
  'tickets',
  'invoices',
  'notifications',
  'activity-logs',
  'sandbox',
  'dashboard',
  'operations',
  'going-live-tokenio',
  'going-live-sumsub',
];

const CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CSS = `*{box-sizing:border-box}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#fff}
a{color:#0b57d0}
.top{display:flex;gap:1.5rem;align-items:center;padding:.75rem 1.25rem;border-bottom:1px solid #d0d7de;background:#f6f8fa}
.top .brand{font-weight:600;color:#1b1f24;text-decoration:none}
.layout{display:flex;align-items:flex-start}
.side{flex:0 0 15rem;padding:1rem 1.25rem;border-right:1px solid #d0d7de;position:sticky;top:0;max-height:100vh;overflow:auto}
.side ul{list-style:none;margin:0;padding:0}
.side li{margin:.15rem 0}
.side a{text-decoration:none;display:block;padding:.15rem .4rem;border-radius:4px}
.side a[aria-current=page]{background:#ddf4ff;font-weight:600;color:#0a3069}
main{flex:1;min-width:0;padding:1rem 2rem 4rem;max-width:60rem}
pre{background:#f6f8fa;padding:.8rem 1rem;overflow:auto;border-radius:6px;font-size:.875rem;line-height:1.45}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
:not(pre)>code{background:#eff1f3;padding:.1em .3em;border-radius:4px;overflow-wrap:anywhere}
table{border-collapse:collapse;display:block;overflow:auto;margin:1rem 0}
th,td{border:1px solid #d0d7de;padding:.35rem .6rem;vertical-align:top;text-align:left}
th{background:#f6f8fa}
h1,h2,h3{line-height:1.25}
h2{margin-top:2rem;border-bottom:1px solid #d8dee4;padding-bottom:.3rem}
.repo-path{border-bottom:1px dotted #57606a}
figure.machine{margin:1rem 0}figure.machine caption{text-align:left;font-weight:600;padding:.3rem 0}figure.machine figcaption{color:#57606a;font-size:.9rem}
.docs-loading{padding:2rem 1.25rem 0;color:#57606a}
.docs-outline{padding:0 1.25rem 2rem;font:15px/1.5 system-ui,sans-serif;columns:24rem auto;column-gap:2rem}
.docs-outline section{break-inside:avoid}.docs-outline h2{font-size:1.05rem;margin:1rem 0 .3rem}
.docs-outline ul{list-style:none;margin:0;padding:0}.docs-outline code{font-size:.8rem;color:#57606a}
.docs-bar{display:flex;gap:1rem;padding:.4rem 1rem;font:14px system-ui,sans-serif;border-bottom:1px solid #d0d7de;background:#f6f8fa}
@media (max-width:760px){.layout{display:block}.side{position:static;max-height:none;border-right:0;border-bottom:1px solid #d0d7de}main{padding:1rem}}
`;

export interface Guide {
  slug: string;
  title: string;
  html: string;
}

const DOC_LINK = /^([^#]+\.md)(#.*)?$/;

type Md = InstanceType<typeof MarkdownIt>;
type Tokens = ReturnType<Md['parse']>;

/**
 * Rewrites links between served documents to their pages (`slugOf` resolves a relative `.md` path
 * to a served slug); links to other repository files lose their href.
 */
function rewriteLinks(tokens: Tokens, slugOf: (relativePath: string) => string | undefined) {
  for (const block of tokens) {
    const children = block.children ?? [];
    for (let i = 0; i < children.length; i++) {
      const t = children[i]!;
      if (t.type !== 'link_open') continue;
      const href = String(t.attrGet('href') ?? '');
      if (/^(https?:|mailto:|#|\/)/.test(href)) continue;
      const m = DOC_LINK.exec(href);
      const slug = m ? slugOf(m[1]!) : undefined;
      if (m && slug) {
        t.attrSet(
          'href',
          `/docs/guides/${slug === 'index' ? '' : slug}${m[2] ?? ''}`.replace(/\/(#|$)/, '$1'),
        );
        continue;
      }
      // A file of the repository: keep the text, name the file, drop the link.
      t.tag = 'span';
      t.attrs = [
        ['class', 'repo-path'],
        ['title', `${href} in the repository`],
      ];
      let depth = 0;
      for (let j = i + 1; j < children.length; j++) {
        const c = children[j]!;
        if (c.type === 'link_open') depth++;
        if (c.type === 'link_close' && depth-- === 0) {
          c.tag = 'span';
          break;
        }
      }
    }
  }
}

/**
 * A Mermaid `stateDiagram-v2` block (the code host draws it; a browser here has no Mermaid) as a
 * table of its transitions, with the start and final statuses named: the same facts, readable
 * without a script.
 */
export function stateDiagramTable(source: string): string | null {
  const lines = source.split('\n').map((l) => l.trim());
  if (lines[0] !== 'stateDiagram-v2') return null;
  const rows: { from: string; to: string; when: string }[] = [];
  const starts: string[] = [];
  const finals: string[] = [];
  for (const line of lines.slice(1)) {
    const m = /^(\S+)\s*-->\s*(\S+?)\s*(?::\s*(.+))?$/.exec(line);
    if (!m) continue;
    const [, from, to, when] = m as unknown as [string, string, string, string | undefined];
    if (from === '[*]') starts.push(to);
    else if (to === '[*]') finals.push(from);
    else rows.push({ from, to, when: when ?? '' });
  }
  const list = (xs: string[]) => xs.map((x) => html`<code>${x}</code>`.value).join(', ');
  const body = rows
    .map(
      (r) =>
        html`<tr><td><code>${r.from}</code></td><td><code>${r.to}</code></td><td>${r.when}</td></tr>`.value,
    )
    .join('');
  const notes = [
    starts.length ? `Starts in ${list(starts)}.` : '',
    finals.length ? `Final: ${list(finals)}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    `<figure class="machine"><table tabindex="0"><caption>Status transitions</caption>` +
    `<thead><tr><th scope="col">From</th><th scope="col">To</th><th scope="col">When</th></tr></thead>` +
    `<tbody>${body}</tbody></table>${notes ? `<figcaption>${notes}</figcaption>` : ''}</figure>\n`
  );
}

function markdown(): Md {
  // html: the guides are the repository's own files (the permission table uses <br>), never input.
  const md = new MarkdownIt({ html: true, linkify: false, typographer: false });
  const fence = md.renderer.rules.fence!;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const t = tokens[idx]!;
    const table = t.info.trim() === 'mermaid' ? stateDiagramTable(t.content.trim()) : null;
    return table ?? fence(tokens, idx, options, env, self);
  };
  md.use(anchor, {
    level: [1, 2, 3, 4],
    slugifyWithState: (s, state) => (state.env as { slugger: GithubSlugger }).slugger.slug(s),
    tabIndex: false,
  });
  return md;
}

const titleOf = (source: string, slug: string) => /^# (.+)$/m.exec(source)?.[1]?.trim() ?? slug;

/**
 * The merchant-facing documents outside the guides folder, served beside them: the going-live guides
 * (`docs/going-live-<vendor>.md` as `going-live-<vendor>`) and the vendor notes
 * (`docs/vendors/<vendor>.md` as `vendor-<vendor>`). The maintainer documents (platform, testing,
 * money internals) stay in the repository only.
 */
function extraDocuments(guidesDir: string): [slug: string, file: string][] {
  const docsDir = path.dirname(guidesDir);
  const list = (dir: string) =>
    fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.md')) : [];
  return [
    ...list(docsDir)
      .filter((f) => f.startsWith('going-live-'))
      .map((f): [string, string] => [f.slice(0, -3), path.join(docsDir, f)]),
    ...list(path.join(docsDir, 'vendors')).map((f): [string, string] => [
      `vendor-${f.slice(0, -3)}`,
      path.join(docsDir, 'vendors', f),
    ]),
  ];
}

/** Reads and renders every guide of `dir`, and the going-live guides and vendor notes next to it. */
export function renderGuides(dir: string = GUIDES_DIR): Map<string, Guide> {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.md')) : [];
  const sources = new Map<string, string>([
    ...files.map((f): [string, string] => [f.slice(0, -3), path.join(dir, f)]),
    ...extraDocuments(dir),
  ]);
  const slugs = [...sources.keys()];
  const rank = (s: string) => (ORDER.includes(s) ? ORDER.indexOf(s) : ORDER.length);
  slugs.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const slugOfFile = new Map([...sources].map(([slug, file]) => [path.resolve(file), slug]));
  const md = markdown();
  const out = new Map<string, Guide>();
  for (const slug of slugs) {
    const file = sources.get(slug)!;
    const source = fs.readFileSync(file, 'utf8');
    const env = { slugger: new GithubSlugger() };
    const tokens = md.parse(source, env);
    rewriteLinks(tokens, (href) => slugOfFile.get(path.resolve(path.dirname(file), href)));
    // Code blocks and wide tables scroll sideways: focusable, so a keyboard can scroll them too.
    const body = md.renderer
      .render(tokens, md.options, env)
      .replaceAll('<pre>', '<pre tabindex="0">')
      .replaceAll('<table>', '<table tabindex="0">');
    out.set(slug, { slug, title: titleOf(source, slug), html: body });
  }
  return out;
}

function page(guide: Guide, all: Map<string, Guide>): string {
  const nav: SafeHtml[] = [...all.values()].map((g) => {
    const href = g.slug === 'index' ? '/docs/guides' : `/docs/guides/${g.slug}`;
    const label = g.slug === 'index' ? 'Overview' : g.title;
    return html`<li><a href="${href}"${raw(g.slug === guide.slug ? ' aria-current="page"' : '')}>${label}</a></li>`;
  });
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${guide.slug === 'index' ? guide.title : `${guide.title} · Payments Platform guides`}</title>
${FAVICON_LINKS}
<link rel="stylesheet" href="/docs/assets/guides.css">
</head>
<body>
<header class="top"><a class="brand" href="/docs/guides">Payments Platform guides</a><a href="/docs">API reference</a></header>
<div class="layout">
<nav class="side" aria-label="Guides"><ul>${nav}</ul></nav>
<main>${raw(guide.html)}</main>
</div>
</body>
</html>`.value;
}

let cache: Map<string, string> | null = null;

/** Every page, rendered on first use and kept for the life of the process (the files do not change). */
function pages(): Map<string, string> {
  if (!cache) {
    const guides = renderGuides();
    cache = new Map([...guides.values()].map((g) => [g.slug, page(g, guides)]));
  }
  return cache;
}

const sendPage = (reply: FastifyReply, body: string) =>
  reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .send(body);

export async function docsGuides(app: FastifyInstance) {
  const opts = { schema: { hide: true }, config: { auth: 'public' as const } };
  app.get('/docs/guides', opts, async (_req, reply) => {
    const body = pages().get('index');
    return body ? sendPage(reply, body) : reply.callNotFound();
  });
  app.get<{ Params: { slug: string } }>('/docs/guides/:slug', opts, async (req, reply) => {
    const body = req.params.slug === 'index' ? undefined : pages().get(req.params.slug);
    return body ? sendPage(reply, body) : reply.callNotFound();
  });
  app.get('/docs/assets/guides.css', opts, async (_req, reply) =>
    reply
      .header('content-type', 'text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(CSS),
  );
}
