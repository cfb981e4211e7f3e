/**
 * Requests to and answers from the stand-in, checked against the dated copy of Documenso's v2 OpenAPI
 * document beside this file (openapi/SOURCE.md): the operation must exist, its JSON or multipart
 * `payload` body match the request schema, and a JSON answer match the response schema of its status.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';

type Obj = Record<string, unknown>;
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Obj }> };
  responses?: Record<string, { content?: Record<string, { schema?: Obj }> }>;
}

const DOC_FILE = path.join(import.meta.dirname, 'openapi', 'documenso-v2-openapi.abridged.2026-11-29.json');
let loaded: { doc: { paths: Record<string, Record<string, Operation>> }; ajv: Ajv } | null = null;
const compiled = new Map<string, ValidateFunction>();

function load() {
  if (loaded) return loaded;
  const doc = JSON.parse(fs.readFileSync(DOC_FILE, 'utf8'));
  // OpenAPI 3.0: `example` and formats are annotations here; `nullable` is rewritten (widenNullable).
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...(widenNullable(doc) as Obj), $id: 'documenso' });
  loaded = { doc, ajv };
  return loaded;
}

/** `{type: T, nullable: true}` as `{type: [T, 'null']}` (enums gain null too), everywhere in the document. */
function widenNullable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(widenNullable);
  if (typeof v !== 'object' || v === null) return v;
  const o: Obj = {};
  for (const [k, x] of Object.entries(v)) o[k] = widenNullable(x);
  if (o.nullable === true && typeof o.type === 'string') {
    o.type = [o.type, 'null'];
    if (Array.isArray(o.enum) && !o.enum.includes(null)) o.enum = [...o.enum, null];
  }
  return o;
}

/** The document's path template matching a concrete path ("/envelope/{envelopeId}"); literal paths win. */
export function templateOf(p: string): string | null {
  const { doc } = load();
  const paths = Object.keys(doc.paths);
  if (paths.includes(p)) return p;
  const segs = p.split('/');
  return (
    paths.find((t) => {
      const ts = t.split('/');
      return (
        ts.length === segs.length && ts.every((s, i) => (s.startsWith('{') ? segs[i] !== '' : s === segs[i]))
      );
    }) ?? null
  );
}

function validatorFor(key: string, schema: Obj): ValidateFunction {
  const { ajv } = load();
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(
      JSON.parse(JSON.stringify(widenNullable(schema)).replaceAll('"$ref":"#/', '"$ref":"documenso#/')),
    );
    compiled.set(key, v);
  }
  return v;
}

const explain = (v: ValidateFunction) =>
  (v.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');

/** Null when the reference allows the request; else what is wrong. `json` is the parsed body (multipart: its fields). */
export function checkRequest(method: string, pathname: string, json: unknown): string | null {
  const { doc } = load();
  const template = templateOf(pathname);
  const op = template ? doc.paths[template]?.[method.toLowerCase()] : undefined;
  if (!template || !op) return `No operation ${method} ${pathname} in the reference`;
  const content = op.requestBody?.content ?? {};
  const schema = content['application/json']?.schema ?? content['multipart/form-data']?.schema;
  if (!schema) return json === undefined ? null : `${method} ${template} takes no body`;
  const v = validatorFor(`req ${method} ${template}`, schema);
  return v(json) ? null : `Request body does not match ${method} ${template}: ${explain(v)}`;
}

/** Null when the reference allows this JSON answer (or documents no JSON schema for it); else what is wrong. */
export function checkResponse(
  method: string,
  pathname: string,
  status: number,
  json: unknown,
): string | null {
  const { doc } = load();
  const template = templateOf(pathname);
  const op = template ? doc.paths[template]?.[method.toLowerCase()] : undefined;
  if (!template || !op) return `No operation ${method} ${pathname} in the reference`;
  const res = op.responses?.[String(status)];
  if (!res) return `${method} ${template} documents no ${status} answer`;
  const schema = res.content?.['application/json']?.schema;
  if (!schema || Object.keys(schema).length === 0) return null;
  const v = validatorFor(`res ${status} ${method} ${template}`, schema);
  return v(json) ? null : `Answer ${status} does not match ${method} ${template}: ${explain(v)}`;
}
