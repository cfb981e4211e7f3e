/**
 * Partial-update (PATCH) bodies carry no `default`: the validator fills defaults in (Ajv's
 * `useDefaults`, as Fastify configures it), so a default in a PATCH schema would overwrite a stored
 * value the caller never sent. Defaults belong to create, applied by the service.
 */
import type { TSchema } from 'typebox';

type Node = { default?: unknown; required?: string[]; properties?: Record<string, Node> };

/**
 * A deep copy of `schema` without any `default` keyword (TypeBox's hidden markers are kept). A
 * property that had a default stays optional: the service applies the default where one applies.
 */
export function withoutDefaults<T extends TSchema>(schema: T): T {
  const copy = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(copy);
    if (!value || typeof value !== 'object') return value;
    const node = value as Node;
    const defaulted = new Set(
      Object.entries(node.properties ?? {})
        .filter(([, p]) => p && typeof p === 'object' && 'default' in p)
        .map(([name]) => name),
    );
    const out = Object.create(Object.getPrototypeOf(value)) as object;
    for (const key of Reflect.ownKeys(value)) {
      if (key === 'default') continue;
      const d = Object.getOwnPropertyDescriptor(value, key)!;
      if (key === 'required' && Array.isArray(d.value)) {
        d.value = (d.value as string[]).filter((name) => !defaulted.has(name));
        if (d.value.length === 0) continue;
      } else if ('value' in d) d.value = copy(d.value);
      Object.defineProperty(out, key, d);
    }
    return out;
  };
  return copy(schema) as T;
}
