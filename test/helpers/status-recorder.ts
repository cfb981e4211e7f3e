/**
 * Records which status every documented API operation answered during a test file, so the setup
 * file (test/helpers/setup.ts) fails the file when an operation answered a status its OpenAPI
 * entry does not list. Automatic for every test using createTestApp.
 */
import type { FastifyInstance } from 'fastify';

const answered = new Map<string, Set<number>>();
const documented = new Map<string, Set<string>>();

/** `/api/v1/x/:id` -> `/api/v1/x/{id}` (the OpenAPI path of a route). */
export function openapiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function recordStatuses(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const url = request.routeOptions.url;
    if (!url?.startsWith('/api/v1/') || request.method === 'HEAD') return;
    const key = `${request.method} ${openapiPath(url)}`;
    const set = answered.get(key) ?? new Set<number>();
    answered.set(key, set);
    set.add(reply.statusCode);
  });
}

interface OpenApiDoc {
  paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}

const pendingDocuments: (() => OpenApiDoc)[] = [];

/**
 * Registers the app's OpenAPI document (called once the app is ready). Generated lazily, at the
 * check, and only when the file made API requests: generating it costs a little per app.
 */
export function learnDocument(generate: () => OpenApiDoc): void {
  pendingDocuments.push(generate);
}

function readDocuments(): void {
  for (const generate of pendingDocuments.splice(0)) {
    const doc = generate();
    for (const [path, item] of Object.entries(doc.paths ?? {}))
      for (const [method, op] of Object.entries(item))
        documented.set(`${method.toUpperCase()} ${path}`, new Set(Object.keys(op.responses ?? {})));
  }
}

/** Forgets the answers and documents seen: each test file is checked on its own (isolate: false). */
export function resetStatusRecorder(): void {
  answered.clear();
  documented.clear();
  pendingDocuments.length = 0;
}

/** `METHOD /path -> status` for every answer the document does not list (hidden routes excluded). */
export function undocumentedStatuses(): string[] {
  if (answered.size === 0) return [];
  readDocuments();
  const out: string[] = [];
  for (const [key, statuses] of answered) {
    const doc = documented.get(key);
    if (!doc || doc.has('default')) continue;
    for (const s of statuses)
      if (!doc.has(String(s)) && !doc.has(`${String(s)[0]}XX`)) out.push(`${key} -> ${s}`);
  }
  return out.sort();
}
