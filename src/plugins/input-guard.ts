/**
 * Hostile input, handled once for every route (no per-route code):
 *  - validation compilers: Ajv coerces types for query strings, path parameters and headers
 *    (strings on the wire) but never for JSON bodies (`amount: 12` is a 422, not "12"); every
 *    compiled validator first rejects NUL characters, lone surrogates and non-finite numbers
 *    anywhere in the part (values and keys) with a 422 naming its `loc`. Validation runs after
 *    preValidation hooks, so signed provider routes still check the raw body's signature first;
 *  - onRoute: every integer/number of a request schema without bounds gets PostgreSQL-safe ones
 *    (src/shared/input-safety.ts), which the OpenAPI document then shows;
 *  - `date` and `date-time` formats accept only instants PostgreSQL can store (years 0001–9999 in
 *    UTC): RFC 3339 allows year 0000, and `9999-12-31T23:00:00-02:00` is year 10000 in UTC.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyInstance, FastifyServerOptions, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { findUnsafeInput, withNumericBounds } from '../shared/input-safety';
import { memoizedCompiler } from './compile-cache';
import { buildSerializer } from './response-serializer';

type ValidateFn = ((data: unknown, dataCxt?: unknown) => unknown) & {
  errors?: unknown;
  schemaEnv?: unknown;
};

/**
 * Wraps a compiled validator so hostile text and numbers fail before the schema is even looked at.
 * A coercing validator is checked again afterwards: Ajv coerces the string "Infinity" to a number
 * that then passes integer and bound checks.
 */
function guarded(compile: () => ValidateFn, coercing: boolean): ValidateFn {
  let inner: ValidateFn | undefined;
  const validate: ValidateFn = (data, dataCxt) => {
    // Compiled on the route's first request (see compile-cache.ts, "compiled when first used").
    inner ??= compile();
    let unsafe = findUnsafeInput(data);
    if (!unsafe) {
      const ok = inner(data, dataCxt);
      validate.errors = inner.errors;
      if (!ok || !coercing) return ok;
      unsafe = findUnsafeInput(data);
      if (!unsafe) return ok;
    }
    validate.errors = [unsafe];
    return false;
  };
  // Fastify passes the parent object to a validator that has a schemaEnv, as every Ajv validator
  // has (Ajv needs the parent to coerce a root value); the inner one does not exist yet.
  validate.schemaEnv = true;
  return validate;
}

const FIRST_STORABLE = new Date('0001-01-01T00:00:00Z').getTime();
const LAST_STORABLE = new Date('9999-12-31T23:59:59.999Z').getTime();

function storable(text: string): boolean {
  const t = Date.parse(/^\d{4}-\d\d-\d\d$/.test(text) ? `${text}T00:00:00Z` : text.toUpperCase());
  return t >= FIRST_STORABLE && t <= LAST_STORABLE;
}

type FormatDef = { validate: (s: string) => boolean; compare?: unknown };
type FormatHost = {
  formats: Record<string, FormatDef | undefined>;
  addFormat(name: string, def: FormatDef): unknown;
};

/** Replaces ajv-formats' `date` and `date-time` with versions that also refuse unstorable years. */
function storableDateFormats(ajv: FormatHost) {
  for (const name of ['date', 'date-time'] as const) {
    const base = ajv.formats[name];
    if (!base) throw new Error(`ajv-formats did not define ${name}`);
    ajv.addFormat(name, { ...base, validate: (s: string) => base.validate(s) && storable(s) });
  }
}

const ajvPool = AjvCompiler();

type AjvServerOptions = {
  customOptions?: Record<string, unknown>;
  plugins?: unknown[];
  onCreate?: (ajv: FormatHost) => void;
};
type CompilerInput = { schema: unknown; method: string; url: string; httpPart?: string };

/** Fastify `schemaController`: a body validator without coercion, a coercing one for everything else. */
export const schemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: {
    buildValidator(externalSchemas: unknown, ajvOptions?: AjvServerOptions) {
      const base = ajvOptions ?? {};
      const build = (coerceTypes: false | 'array') =>
        (ajvPool as unknown as (ext: unknown, o: AjvServerOptions) => (i: CompilerInput) => ValidateFn)(
          externalSchemas,
          { ...base, customOptions: { ...base.customOptions, coerceTypes }, onCreate: storableDateFormats },
        );
      const settings = { externalSchemas, ajvOptions: base };
      const strict = memoizedCompiler({ ...settings, coerceTypes: false }, build(false));
      const coercing = memoizedCompiler({ ...settings, coerceTypes: 'array' }, build('array'));
      return (input: CompilerInput) =>
        input.httpPart === 'body'
          ? guarded(() => strict(input), false)
          : guarded(() => coercing(input), true);
    },
    // Not input, but the same controller: response serializers without per-value Ajv checks.
    buildSerializer,
  } as never,
};

const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const;

export const inputGuardPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      const schema = route.schema as Record<string, unknown> | undefined;
      if (!schema) return;
      for (const part of REQUEST_PARTS) if (schema[part]) schema[part] = withNumericBounds(schema[part]);
    });
  },
  { name: 'input-guard' },
);
