/**
 * Compiled request validators and response serializers, shared by every app this process builds
 * and by every route whose schema is the same: keyed by the compiler's settings and the schema's
 * JSON (TypeBox's symbol keys do not take part in validation or serialization). Compiling (Ajv,
 * fast-json-stringify) was most of an app build's time, and the test suite builds many apps per
 * process; in production it shares the compiled function between routes with equal schemas.
 *
 * Compiled when first used: the validators (input-guard.ts) and serializers (response-serializer.ts)
 * Fastify asks for at route registration compile on the route's first request instead. A start
 * compiled about 600 schemas for some 290 routes, about 2 s of a node's 5 s of start-up CPU; a
 * process now pays only for the routes it serves (a few milliseconds on each route's first call).
 * Every route's schemas are still compiled by the suite (test/hardening/openapi-fuzz.test.ts calls
 * every operation), so a schema Ajv refuses cannot wait for production to be found.
 */
const compiled = new Map<string, unknown>();

export function memoizedCompiler<I extends { schema: unknown }, F>(
  settings: unknown,
  compile: (input: I) => F,
): (input: I) => F {
  const prefix = `${JSON.stringify(settings)}\u0000`;
  return (input) => {
    const key = prefix + JSON.stringify(input.schema);
    let fn = compiled.get(key) as F | undefined;
    if (fn === undefined) {
      fn = compile(input);
      compiled.set(key, fn);
    }
    return fn;
  };
}
