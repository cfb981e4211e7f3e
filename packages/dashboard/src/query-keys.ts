/** The pure half of query.ts (no React): URLs from path templates, query keys, invalidation matching. */

/** `/transactions/{transaction_id}` with its parameters filled in (each one URL-encoded). */
export function fillPath(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = params?.[name];
    if (v === undefined || v === null || v === '') throw new Error(`fillPath: ${template} needs ${name}`);
    return encodeURIComponent(String(v));
  });
}

/** Empty filters are left out of the key as well as the request: `{status: ''}` is the same list as `{}`. */
export function cleanQuery(
  q: Record<string, unknown> | undefined,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(q ?? {}))
    if (v !== undefined && v !== null && v !== '') out[k] = v as string | number | boolean;
  return out;
}

export const queryKeyOf = (path: string, params?: unknown, query?: Record<string, unknown>) =>
  [path, params ?? {}, cleanQuery(query)] as const;

/**
 * Whether the API lists `action` in the row's `allowed_actions` (computed from the resource's status
 * machine and the caller's permissions): show a button exactly when the API will accept it.
 */
export function allows<A extends string>(
  row: { allowed_actions: readonly A[] } | undefined,
  action: NoInfer<A>,
) {
  return row?.allowed_actions.includes(action) ?? false;
}

/** True when `key` (a key of `queryKeyOf`) is under one of the `prefixes` (path templates). */
export function underAny(key: readonly unknown[], prefixes: readonly string[]): boolean {
  const p = key[0];
  return typeof p === 'string' && prefixes.some((x) => p === x || p.startsWith(`${x}/`));
}
