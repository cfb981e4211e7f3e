/**
 * Moves every node marked by `markNamed` (schema-names.ts) into `components.schemas` under its
 * name and leaves a `$ref` in its place, innermost first (a named object inside another is
 * referenced from the outer component too).
 *
 * One name, one schema: the same TypeBox object always converts to the same JSON, except that
 * request bodies show defaulted fields as optional (request-defaults.ts). A request-side copy that
 * differs from the response-side one is named `<Name>Input`.
 */
import { SCHEMA_NAME_KEY } from './schema-names';
import type { OpenApiDoc, Schema } from './types';

type Context = 'request' | 'response';

/** JSON of a schema for comparison; fastify-swagger moves a top-level `examples` onto the media. */
function comparable(schema: Schema): string {
  const { examples: _e, example: _x, ...rest } = schema;
  return JSON.stringify(rest);
}

export class SchemaHoister {
  constructor(private readonly schemas: Record<string, Schema>) {}

  /** Where `node` (already free of markers inside) is stored: its name, or a variant of it. */
  private place(name: string, node: Schema, ctx: Context): string {
    const candidates = ctx === 'request' ? [name, `${name}Input`] : [name];
    for (let i = 2; candidates.length < 12; i++) candidates.push(`${name}${i}`);
    for (const n of candidates) {
      const existing = this.schemas[n];
      if (!existing) {
        this.schemas[n] = node;
        return n;
      }
      if (comparable(existing) === comparable(node)) {
        // Keep the examples a nested occurrence carries.
        if (node.examples && !existing.examples) existing.examples = node.examples;
        return n;
      }
    }
    throw new Error(`Too many variants of the schema ${name}`);
  }

  /** Returns `node` with every marked node inside replaced by a `$ref` (and `node` itself, if marked). */
  hoist(node: unknown, ctx: Context): unknown {
    if (!node || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((x) => this.hoist(x, ctx));
    const obj = node as Schema;
    for (const [k, v] of Object.entries(obj)) if (v && typeof v === 'object') obj[k] = this.hoist(v, ctx);
    const name = obj[SCHEMA_NAME_KEY];
    if (typeof name !== 'string') return obj;
    delete obj[SCHEMA_NAME_KEY];
    return { $ref: `#/components/schemas/${this.place(name, obj, ctx)}` };
  }
}

/** Hoists the named schemas of every operation's request body and responses. */
export function hoistNamedSchemas(doc: OpenApiDoc): void {
  doc.components.schemas ??= {};
  const hoister = new SchemaHoister(doc.components.schemas);
  const content = (holder: Schema | undefined, ctx: Context) => {
    for (const media of Object.values((holder?.content as Record<string, Schema> | undefined) ?? {}))
      if (media.schema) media.schema = hoister.hoist(media.schema, ctx);
  };
  const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
  // Responses first: the response-side shape owns the plain name, a differing request side is `…Input`.
  for (const op of ops)
    for (const response of Object.values(op.responses ?? {})) content(response as Schema, 'response');
  for (const op of ops) content(op.requestBody, 'request');
}
