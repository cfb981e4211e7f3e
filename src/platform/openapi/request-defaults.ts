/**
 * Request schemas in the document carry no `default`: mainstream generators make a field with a
 * `default` required (openapi-typescript's `defaultNonNullable`, on by default), although a client
 * may leave it out and the validator fills it in. The value moves to `x-default` and to the
 * description ("Default: `86400`."). Response schemas keep `default` where it is true.
 */
type Schema = Record<string, unknown>;

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];

/** Moves every `default` in a (JSON) request schema to `x-default` and the description, in place. */
export function moveRequestDefaults(schema: unknown): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const node = schema as Schema;
  if ('default' in node) {
    const value = node.default;
    delete node.default;
    node['x-default'] = value;
    const sentence = `Default: \`${JSON.stringify(value)}\`.`;
    const description = typeof node.description === 'string' ? node.description.trim() : '';
    node.description = description
      ? `${description}${/[.!?]$/.test(description) ? '' : '.'} ${sentence}`
      : sentence;
  }
  for (const key of SUBSCHEMA_MAPS)
    for (const sub of Object.values((node[key] as Schema | undefined) ?? {})) moveRequestDefaults(sub);
  for (const key of SUBSCHEMA_LISTS)
    if (Array.isArray(node[key])) for (const sub of node[key] as unknown[]) moveRequestDefaults(sub);
  for (const key of SUBSCHEMAS) moveRequestDefaults(node[key]);
}
