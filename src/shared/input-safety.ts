/**
 * Hostile-input rules shared by every route, applied centrally (src/plugins/input-guard.ts):
 *  - text: no NUL character (PostgreSQL text and jsonb cannot hold U+0000) and no lone UTF-16
 *    surrogate (not valid Unicode; PostgreSQL refuses it), in values and in object keys;
 *  - numbers: finite only (JSON `1e400` parses to Infinity);
 *  - every integer/number in a request schema gets bounds when it declares none, so nothing
 *    reaches PostgreSQL out of range (`integer` columns hold 32 bits).
 */

/** An Ajv-shaped error, so the error handler maps it like any schema error. */
export interface UnsafeInputError {
  instancePath: string;
  keyword: 'nulCharacter' | 'loneSurrogate' | 'finiteNumber';
  params: Record<string, unknown>;
  message: string;
}

/** PostgreSQL `integer`. */
export const INTEGER_BOUNDS = { minimum: -2_147_483_648, maximum: 2_147_483_647 } as const;
/** Beyond this a JSON number loses decimal precision; money is a decimal string anyway. */
export const NUMBER_BOUNDS = { minimum: -1e15, maximum: 1e15 } as const;

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** With the `u` flag a surrogate pair is one code point, so only lone surrogates match. */
const LONE_SURROGATE = /\p{Cs}/u;

function textProblem(s: string): UnsafeInputError['keyword'] | null {
  if (s.includes('\u0000')) return 'nulCharacter';
  if (LONE_SURROGATE.test(s)) return 'loneSurrogate';
  return null;
}

const MESSAGES: Record<UnsafeInputError['keyword'], string> = {
  nulCharacter: 'must not contain NUL characters',
  loneSurrogate: 'must be valid Unicode (no lone surrogates)',
  finiteNumber: 'must be a finite number',
};

const issue = (instancePath: string, keyword: UnsafeInputError['keyword']): UnsafeInputError => ({
  instancePath,
  keyword,
  params: {},
  message: MESSAGES[keyword],
});

/**
 * The first unsafe value in a parsed request part (iterative: no recursion limit to hit), or null.
 * Object keys are checked too (they become jsonb keys).
 */
export function findUnsafeInput(root: unknown): UnsafeInputError | null {
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const p = textProblem(value);
      if (p) return issue(path, p);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return issue(path, 'finiteNumber');
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}/${i}`]);
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        const child = `${path}/${pointer(key)}`;
        const p = textProblem(key);
        if (p) return issue(child, p);
        stack.push([(value as Record<string, unknown>)[key], child]);
      }
    }
  }
  return null;
}

type SchemaNode = Record<string, unknown>;

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMA_SINGLE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const;
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;

function isNode(v: unknown): v is SchemaNode {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A copy of a request schema in which every integer/number without an explicit bound gets the
 * defaults above (explicit bounds are kept). The copy is plain JSON: validation and the OpenAPI
 * document both read it, so the document states the real bounds.
 */
export function withNumericBounds<T>(schema: T): T {
  if (!isNode(schema)) return schema;
  const copy = JSON.parse(JSON.stringify(schema)) as SchemaNode;
  const stack: SchemaNode[] = [copy];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const types = Array.isArray(node.type) ? node.type : [node.type];
    const bounds = types.includes('integer')
      ? INTEGER_BOUNDS
      : types.includes('number')
        ? NUMBER_BOUNDS
        : null;
    if (bounds) {
      if (node.minimum === undefined && node.exclusiveMinimum === undefined) node.minimum = bounds.minimum;
      if (node.maximum === undefined && node.exclusiveMaximum === undefined) node.maximum = bounds.maximum;
    }
    for (const k of SUBSCHEMA_LISTS) {
      const list = node[k];
      if (Array.isArray(list)) for (const s of list) if (isNode(s)) stack.push(s);
    }
    for (const k of SUBSCHEMA_SINGLE) if (isNode(node[k])) stack.push(node[k] as SchemaNode);
    for (const k of SUBSCHEMA_MAPS) {
      const map = node[k];
      if (isNode(map)) for (const s of Object.values(map)) if (isNode(s)) stack.push(s);
    }
  }
  return copy as T;
}
