/**
 * Compiled request validators and response serializers, shared by every app this process builds
 * and by every route whose schema is the same: keyed by the compiler's settings and the schema's
 * JSON (TypeBox's symbol keys do not take part in validation or serialization). Compiling (Ajv,
 * fast-json-stringify) was most of an app build's time, and the test suite builds many apps per
 * process; in production it shares the compiled function between routes with equal schemas.
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
