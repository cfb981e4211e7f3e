/**
 * Every request the adapter sends, checked against Token.io's published OpenAPI document (a dated
 * copy beside this file, openapi/SOURCE.md): the operation must exist, its required query
 * parameters be present, and the JSON body match the operation's request schema. A request the
 * reference does not allow is the stand-in's 400, as Token.io would answer, so a test fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';

type Obj = Record<string, unknown>;
interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: Obj }> };
}

const DOC_FILE = path.join(import.meta.dirname, 'openapi', 'token-io-openapi.2026-08-03.json');
let loaded: { doc: { paths: Record<string, Record<string, Operation>> }; ajv: Ajv } | null = null;
const compiled = new Map<string, ValidateFunction>();

function load() {
  if (loaded) return loaded;
  // The reference's alternatives overlap (SepaAccount and SepaInstantAccount are both {iban, bic?}),
  // so a strict `oneOf` refuses every IBAN creditor: alternatives are read as `anyOf` (at least one).
  const doc = JSON.parse(fs.readFileSync(DOC_FILE, 'utf8').replaceAll('"oneOf":', '"anyOf":'));
  // `RefundInitiation` lists `paymentType` as required but defines no such property (no type, no
  // values), so nobody can send a valid one: the requirement is dropped until Token.io says what it
  // is (docs/vendors/tokenio.md, "Refunds"); every other field of the refund body is checked.
  const refund = doc.components.schemas.RefundInitiation;
  refund.required = refund.required.filter((f: string) => f !== 'paymentType');
  // OpenAPI 3.0 schemas: `nullable`, `example`, `x-*` and formats are annotations here.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...doc, $id: 'tokenio' });
  loaded = { doc, ajv };
  return loaded;
}

/** The reference's path template matching a concrete path ("/v2/payments/{paymentId}"). */
function templateOf(paths: string[], p: string): string | null {
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

/**
 * Bodies not checked yet, each with why (docs/vendors/tokenio.md, "Checked against the reference").
 * POST /member/sub-tpps: the reference's `CreateSubTppRequest` is a oneOf of eleven onboarding
 * variants; the one we send (`OldMerchantOnboarding`) lists `industry` as required although it is
 * not among its properties, and the licensed variants need UBOs, directors and signatories we do
 * not collect yet. Open question to Token.io; the stand-in's own checks (validate.ts) still apply.
 */
const BODY_NOT_CHECKED = new Set(['POST /member/sub-tpps']);

/** Null when the request is one the reference allows; else what is wrong (for a FieldError). */
export function checkAgainstReference(
  method: string,
  pathname: string,
  query: URLSearchParams,
  body: Buffer,
): { message: string; paths: string[] } | null {
  const { doc, ajv } = load();
  const template = templateOf(Object.keys(doc.paths), pathname);
  const op = template ? doc.paths[template]?.[method.toLowerCase()] : undefined;
  if (!template || !op) return { message: `No operation ${method} ${pathname} in the reference`, paths: [] };
  const missing = (op.parameters ?? [])
    .filter((p) => p.in === 'query' && p.required && !query.has(p.name))
    .map((p) => p.name);
  if (missing.length)
    return { message: `Missing required query parameter(s): ${missing.join(', ')}`, paths: missing };
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const key = `${method} ${template}`;
  if (!schema || body.length === 0 || BODY_NOT_CHECKED.has(key)) return null;
  let validate = compiled.get(key);
  if (!validate) {
    const ref = (schema as { $ref?: string }).$ref;
    validate = ref ? ajv.getSchema(`tokenio${ref}`)! : ajv.compile(rewriteRefs(schema));
    compiled.set(key, validate);
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { message: 'The body is not JSON', paths: [] };
  }
  if (validate(json)) return null;
  const errs = validate.errors ?? [];
  return {
    message: `The body does not match the reference: ${errs
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ')}`,
    paths: errs.slice(0, 5).map((e) => e.instancePath.replace(/^\//, '').replaceAll('/', '.')),
  };
}

/** An inline schema's `#/components/...` refs, pointed at the document added as `tokenio`. */
function rewriteRefs(s: unknown): Obj {
  return JSON.parse(JSON.stringify(s).replaceAll('"$ref":"#/', '"$ref":"tokenio#/'));
}
