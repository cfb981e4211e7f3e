/**
 * Names for the shared TypeBox schemas in the OpenAPI document. A schema object gets a name once
 * (`nameSchema('Transaction', TransactionSchema)`), by identity: every route that uses that object,
 * in a body, a response or nested in another schema, then references one `components.schemas`
 * entry instead of repeating it under an operation's name. Fields added to the object later keep
 * the name (nothing is keyed by the field set).
 *
 * Request schemas reach the router as copies (input-guard gives unbounded numbers bounds), so for a
 * request part a node is also recognised by its content: the JSON of the named object as that copy
 * shows it, computed when the document is built (fields added later are in it). Content shared by
 * two names is ambiguous and names nothing.
 *
 * How it reaches the document: `markNamed` copies a route's schema and marks each named node with
 * `x-svc-schema-name` (fastify-swagger keeps `x-` keys while it converts), and `hoistNamedSchemas`
 * (hoist.ts) moves each marked node into components.schemas and leaves a `$ref`.
 */

import { withNumericBounds } from '../../shared/input-safety';

/** The marker key a named node carries between the route transform and the document transform. */
export const SCHEMA_NAME_KEY = 'x-svc-schema-name';

const names = new WeakMap<object, string>();
const owners = new Map<string, object>();

let byContent: Map<string, string | null> | null = null;

function contentNames(): Map<string, string | null> {
  if (byContent) return byContent;
  byContent = new Map();
  for (const [name, schema] of owners) {
    const key = JSON.stringify(withNumericBounds(schema));
    byContent.set(key, byContent.has(key) && byContent.get(key) !== name ? null : name);
  }
  return byContent;
}

/** Names `schema` (first name wins for an object; a name belongs to one object). Returns the schema. */
export function nameSchema<T extends object>(name: string, schema: T): T {
  if (names.has(schema)) return schema;
  const owner = owners.get(name);
  if (owner && owner !== schema) throw new Error(`OpenAPI schema name ${name} is already taken`);
  owners.set(name, schema);
  names.set(schema, name);
  byContent = null;
  return schema;
}

/** The registered name of a schema object, if any. */
export const schemaName = (schema: unknown): string | undefined =>
  schema && typeof schema === 'object' ? names.get(schema) : undefined;

/** Whether a name is taken (by any object). */
export const isSchemaNameTaken = (name: string): boolean => owners.has(name);

/**
 * A JSON copy of a route schema part (body, one response) in which every named node carries its
 * name under SCHEMA_NAME_KEY. Symbol keys (TypeBox's markers) are dropped, like JSON.stringify does.
 */
export function markNamed(schema: unknown, opts: { byContent?: boolean } = {}): unknown {
  const content = opts.byContent ? contentNames() : null;
  const copy = (node: unknown, seen: Set<object>): unknown => {
    if (!node || typeof node !== 'object') return node;
    if (seen.has(node)) throw new Error('Cyclic schema');
    seen.add(node);
    let out: unknown;
    if (Array.isArray(node)) out = node.map((x) => copy(x, seen));
    else {
      const obj: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) if (v !== undefined) obj[k] = copy(v, seen);
      const name = names.get(node) ?? content?.get(JSON.stringify(node)) ?? undefined;
      if (name) obj[SCHEMA_NAME_KEY] = name;
      out = obj;
    }
    seen.delete(node);
    return out;
  };
  return copy(schema, new Set());
}
