/**
 * fast-check arbitraries driven by JSON schemas of the OpenAPI document: values that mostly fit the
 * schema (so requests get past validation into the handlers) mixed with hostile ones (NUL bytes,
 * lone surrogates, numbers JSON cannot hold, wrong types, extreme dates, oversized text).
 */
import fc from 'fast-check';

type Schema = Record<string, unknown>;

/** A number written verbatim into JSON text (JSON.stringify cannot write 1e400). */
export class RawNumber {
  constructor(readonly text: string) {}
}

const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '',
  ' ',
  'x'.repeat(5000),
  '💥🧨',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e400',
  '99999999999999999999',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '<script>alert(1)</script>',
  '0000-01-01T00:00:00Z',
  '-200000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '0000-01-01',
  '1970-01-01',
  '00000000-0000-0000-0000-000000000000',
];

const HOSTILE_NUMBERS = [
  new RawNumber('1e400'),
  new RawNumber('-1e400'),
  new RawNumber('99999999999999999999'),
  new RawNumber('-99999999999999999999'),
  new RawNumber('1e-400'),
  2147483648,
  -2147483649,
  Number.MAX_SAFE_INTEGER,
  -1,
  0,
  1.5,
];

const HOSTILE_OTHER: unknown[] = [null, true, false, [], {}, { '\u0000': 1 }, ['\u0000'], [[[[[[[]]]]]]]];

/** Text PostgreSQL cannot store, the probe's most frequent 500: weighted up. */
const UNSTORABLE = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800'),
  fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '\ud800', '\udfff')).map(([a, b]) => a + b),
);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: UNSTORABLE, weight: 4 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 3 },
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 3 },
  { arbitrary: fc.constantFrom(...HOSTILE_OTHER), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 1 },
);

export interface Resolver {
  resolve(schema: Schema): Schema;
  /** Known ids by field name (an existing project_id, ...) so requests reach the handlers. */
  knownIds: Record<string, string[]>;
}

const dateTime = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

function stringFor(s: Schema, name: string, r: Resolver): fc.Arbitrary<unknown> {
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (s.const !== undefined) return fc.constant(s.const);
  const known = r.knownIds[name];
  switch (s.format) {
    case 'uuid':
      return known?.length ? fc.oneof(fc.constantFrom(...known), fc.uuid()) : fc.uuid();
    case 'date-time':
      return dateTime;
    case 'date':
      return dateTime.map((d) => d.slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
  }
  if (/url$/.test(name)) return fc.webUrl();
  if (/email/.test(name)) return fc.emailAddress();
  if (/amount/.test(name))
    return fc.constantFrom('1.00', '125.50', '0', '-1', '0.001', '1e3', '99999999999999999999.99');
  if (/currency/.test(name)) return fc.constantFrom('EUR', 'GBP', 'XXX', 'eu');
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= Number(s.maxLength ?? 1e9));
    } catch {
      // a pattern fast-check cannot generate from: plain strings below
    }
  }
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? Math.min(s.maxLength, 40) : 40;
  return fc.string({ minLength: Math.min(min, max), maxLength: Math.max(min, max) });
}

/** An arbitrary for `schema`: `hostility` is the weight (0-100) of a hostile value at each leaf. */
export function valueFor(
  schema: Schema,
  r: Resolver,
  name = '',
  depth = 0,
  hostility = 25,
): fc.Arbitrary<unknown> {
  const s = r.resolve(schema);
  const fitting = fittingFor(s, r, name, depth, hostility);
  if (depth > 6) return fitting;
  return fc.oneof(
    { arbitrary: fitting, weight: 100 - hostility },
    { arbitrary: hostileValue, weight: hostility },
  );
}

function fittingFor(
  s: Schema,
  r: Resolver,
  name: string,
  depth: number,
  hostility: number,
): fc.Arbitrary<unknown> {
  const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (variants?.length) return fc.oneof(...variants.map((v) => valueFor(v, r, name, depth + 1, hostility)));
  const type = Array.isArray(s.type) ? (s.type as string[])[0] : (s.type as string | undefined);
  switch (type) {
    case 'string':
      return stringFor(s, name, r);
    case 'integer':
      return fc.integer({
        min: typeof s.minimum === 'number' ? Math.max(s.minimum, -1e6) : -1e6,
        max: typeof s.maximum === 'number' ? Math.min(s.maximum, 1e6) : 1e6,
      });
    case 'number':
      return fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (s.items as Schema | undefined) ?? {};
      return fc.array(valueFor(items, r, name, depth + 1, hostility), { maxLength: depth > 2 ? 1 : 3 });
    }
    case 'object':
      return objectFor(s, r, depth, hostility);
    default:
      if (s.properties) return objectFor(s, r, depth, hostility);
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectFor(s: Schema, r: Resolver, depth: number, hostility: number): fc.Arbitrary<unknown> {
  const props = (s.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set((s.required as string[] | undefined) ?? []);
  const entries = Object.entries(props).map(
    ([k, v]) =>
      [
        k,
        required.has(k)
          ? hostility === 0
            ? valueFor(v, r, k, depth + 1, 0)
            : fc.oneof(
                { arbitrary: valueFor(v, r, k, depth + 1, hostility), weight: 19 },
                { arbitrary: fc.constant(undefined), weight: 1 },
              )
          : fc.option(valueFor(v, r, k, depth + 1, hostility), { nil: undefined }),
      ] as const,
  );
  // An extra member (a hostile key or value) now and then, never in a fitting value.
  const extra =
    hostility === 0
      ? fc.constant(undefined)
      : fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 4 },
          {
            arbitrary: fc.tuple(fc.constantFrom('extra', 'a\u0000', '\ud800', '__proto__'), hostileValue),
            weight: 1,
          },
        );
  return fc.tuple(fc.tuple(...entries.map(([, a]) => a)), extra).map(([values, more]) => {
    const out: Record<string, unknown> = {};
    entries.forEach(([k], i) => {
      if (values[i] !== undefined) out[k] = values[i];
    });
    if (more) Object.defineProperty(out, more[0], { value: more[1], enumerable: true, writable: true });
    return out;
  });
}

/** JSON text of a value, writing RawNumbers verbatim (lone surrogates become \\uXXXX escapes). */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v) => {
    if (v instanceof RawNumber) {
      raws.push(v.text);
      return `__RAW_${raws.length - 1}__`;
    }
    return v;
  });
  return (text ?? 'null').replace(/"__RAW_(\d+)__"/g, (_, i) => raws[Number(i)]!);
}

/** Percent-encoding that also writes lone surrogates (as their 3 UTF-8-like bytes, which no decoder accepts). */
export function encodeLoose(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      const bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(ch);
  }
  return out;
}

/** A value as it travels in a query string or path segment. */
export function asText(v: unknown): string {
  if (v instanceof RawNumber) return v.text;
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  return toJsonText(v);
}

/**
 * Every place in a JSON value a hostile value can go: the root, object members, array items. Leaves
 * (the text and numbers that end up in columns) count three times.
 */
function slotsOf(value: unknown): (string | number)[][] {
  const out: (string | number)[][] = [[]];
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  const add = (x: unknown, path: (string | number)[]) => {
    const leaf = x === null || typeof x !== 'object' || x instanceof RawNumber;
    for (let i = 0; i < (leaf ? 3 : 1); i++) out.push(path);
    stack.push([x, path]);
  };
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (Array.isArray(v)) for (const [i, x] of v.entries()) add(x, [...path, i]);
    else if (v && typeof v === 'object' && !(v instanceof RawNumber))
      for (const [k, x] of Object.entries(v)) add(x, [...path, k]);
  }
  return out;
}

/** `value` with the slot number `pick` (modulo the slot count) replaced by `hostile`. */
export function mutateOne(value: unknown, hostile: unknown, pick: number): unknown {
  const slots = slotsOf(value);
  const path = slots[pick % slots.length]!;
  if (path.length === 0) return hostile;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = hostile;
  return copy;
}

/** A value fitting `schema` with exactly one place made hostile: the classic single-fault mutation. */
export function mutatedValueFor(schema: Schema, r: Resolver): fc.Arbitrary<unknown> {
  return fc
    .tuple(valueFor(schema, r, '', 0, 0), hostileValue, fc.nat())
    .map(([value, hostile, pick]) => mutateOne(value, hostile, pick));
}
