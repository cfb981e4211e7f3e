/**
 * Records which status every documented API operation answered during a test file, and the media
 * type of each successful answer, so the setup file (test/helpers/setup.ts) fails the file when an
 * operation answered a status its OpenAPI entry does not list, or a 2xx body of a media type its
 * entry does not list (a CSV documented as JSON). Automatic for every test using createTestApp.
 */
import type { FastifyInstance } from 'fastify';

const answered = new Map<string, Set<number>>();
const documented = new Map<string, Set<string>>();
/** `METHOD /path status` -> the media types (no parameters) it answered with. */
const answeredTypes = new Map<string, Set<string>>();
const documentedTypes = new Map<string, Set<string>>();

/** `text/csv; charset=utf-8` -> `text/csv`. */
export const mediaTypeOf = (contentType: unknown) =>
  String(contentType ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

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
    const type = mediaTypeOf(reply.getHeader('content-type'));
    if (reply.statusCode >= 200 && reply.statusCode < 300 && type) {
      const typeKey = `${key} ${reply.statusCode}`;
      const types = answeredTypes.get(typeKey) ?? new Set<string>();
      answeredTypes.set(typeKey, types);
      types.add(type);
    }
  });
}

interface OpenApiDoc {
  paths?: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>
  >;
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
      for (const [method, op] of Object.entries(item)) {
        const key = `${method.toUpperCase()} ${path}`;
        documented.set(key, new Set(Object.keys(op.responses ?? {})));
        for (const [status, response] of Object.entries(op.responses ?? {}))
          if (response.content)
            documentedTypes.set(`${key} ${status}`, new Set(Object.keys(response.content)));
      }
  }
}

/** Forgets the answers and documents seen: each test file is checked on its own (isolate: false). */
export function resetStatusRecorder(): void {
  answered.clear();
  documented.clear();
  answeredTypes.clear();
  documentedTypes.clear();
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

/** `METHOD /path status -> media type` for every 2xx body of a type its documented answer does not list. */
export function undocumentedMediaTypes(): string[] {
  if (answeredTypes.size === 0) return [];
  readDocuments();
  const out: string[] = [];
  for (const [key, types] of answeredTypes) {
    const doc = documentedTypes.get(key);
    if (!doc) continue;
    for (const t of types) if (!doc.has(t)) out.push(`${key} -> ${t} (documented: ${[...doc].join(', ')})`);
  }
  return out.sort();
}
