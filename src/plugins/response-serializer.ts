/**
 * Response serializers (fast-json-stringify, Fastify's default) compiled from a copy of each
 * response schema in which a nullable scalar, `anyOf: [{type: 'string', ...}, {type: 'null'}]`
 * (TypeBox's `Type.Union([T, Type.Null()])`), becomes `{type: 'string', ..., nullable: true}`.
 * fast-json-stringify serializes an `anyOf` by running an Ajv validator per branch on every value
 * (a UUID format check per nullable id per row of a list); a nullable type is one `=== null` test.
 * An any-key record (`Type.Record(Type.String(), Type.Unknown())`, the `metadata` fields) becomes
 * `additionalProperties: true`. The output is the same for every value the schema allows. The route schemas themselves (request
 * validation, the OpenAPI document) are left as they are.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { memoizedCompiler } from './compile-cache';

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

function isNull(s: unknown): boolean {
  return typeof s === 'object' && s !== null && (s as { type?: unknown }).type === 'null';
}

/** The non-null branch of a two-branch nullable scalar union, else undefined. */
function nullableScalar(s: Record<string, unknown>): Record<string, unknown> | undefined {
  const branches = s.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return undefined;
  const other = isNull(branches[0]) ? branches[1] : isNull(branches[1]) ? branches[0] : undefined;
  if (typeof other !== 'object' || other === null) return undefined;
  const o = other as Record<string, unknown>;
  const combined = 'anyOf' in o || 'oneOf' in o || 'allOf' in o || '$ref' in o || 'nullable' in o;
  return typeof o.type === 'string' && SCALARS.has(o.type) && !combined ? o : undefined;
}

/** `Type.Record(Type.String(), Type.Unknown())`: any keys, any values. */
function isAnyRecord(s: Record<string, unknown>): boolean {
  const pp = s.patternProperties as Record<string, unknown> | undefined;
  if (s.type !== 'object' || !pp || s.properties || s.additionalProperties !== undefined) return false;
  const keys = Object.keys(pp);
  const only = keys.length === 1 ? pp[keys[0]!] : undefined;
  return keys[0] === '^.*$' && typeof only === 'object' && only !== null && Object.keys(only).length === 0;
}

/**
 * A plain copy of `schema` (no symbols) with every nullable scalar union as a nullable type, and
 * every any-key record as `additionalProperties: true` (each value JSON.stringify'd either way;
 * without the per-key pattern test).
 */
export function serializerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializerSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const s = schema as Record<string, unknown>;
  if (isAnyRecord(s)) {
    const { patternProperties: _pp, ...rest } = s;
    return { ...rest, additionalProperties: true };
  }
  const scalar = nullableScalar(s);
  if (scalar) {
    const { anyOf: _anyOf, ...rest } = s;
    return { ...(serializerSchema(rest) as object), ...(serializerSchema(scalar) as object), nullable: true };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) out[k] = serializerSchema(v);
  return out;
}

type Factory = (externalSchemas: unknown, opts: unknown) => (input: { schema: unknown }) => unknown;

/** Fastify `schemaController.compilersFactory.buildSerializer`: the default one, on serializerSchema copies. */
export function buildSerializer(externalSchemas: unknown, serializerOpts: unknown) {
  const compile = memoizedCompiler(
    { serializer: true, externalSchemas, serializerOpts },
    (SerializerSelector as unknown as () => Factory)()(externalSchemas, serializerOpts),
  );
  // Compiled on the first response that uses it (see compile-cache.ts, "compiled when first used").
  return (input: { schema: unknown }) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => {
      serialize ??= compile({ ...input, schema: serializerSchema(input.schema) }) as (
        data: unknown,
      ) => string;
      return serialize(data);
    };
  };
}
