/**
 * `allowed_actions` (docs/platform.md, "allowed_actions"): the actions a caller can take on a row
 * right now, derived from the feature's machine and the caller's permissions, so a client (the
 * dashboard) never re-encodes a status table. A feature declares its actions once, next to its
 * machine, with `defineActions`; its views call the result with the row and the caller.
 */
import { Type } from 'typebox';
import type { Machine } from './machine';

/** Who asks: the token's permissions, and the deployment (sandbox-only actions). */
export interface ActionViewer<P extends string = string> {
  readonly permissions: ReadonlySet<P>;
  readonly sandbox: boolean;
}

export interface ActionRule<R, S extends string, T extends string, P extends string> {
  /** The permission the action's endpoint requires. */
  readonly permission: P;
  /** The machine's triggers the action fires: listed when one of them can move the row's status. */
  readonly triggers?: readonly T[];
  /** A status predicate of the feature's machine file, for actions that are not a move (edit a draft). */
  readonly statuses?: (status: S) => boolean;
  /** What else the endpoint checks on the row (a bank session to refresh); computed from the row only. */
  readonly when?: (row: R, viewer: ActionViewer) => boolean;
  /** Offered only on sandbox deployments. */
  readonly sandboxOnly?: boolean;
}

export interface Actions<R, A extends string> {
  /** Every action name, in declaration order (the schema's enum). */
  readonly names: readonly A[];
  /** The actions `viewer` can take on `row` now: no statement, computed from the row. */
  of(row: R, viewer: ActionViewer): A[];
}

export function defineActions<R, S extends string, T extends string, P extends string, A extends string>(
  machine: Machine<S, T>,
  statusOf: (row: R) => S,
  rules: { readonly [K in A]: ActionRule<R, S, T, P> },
): Actions<R, A> {
  const entries = Object.entries(rules) as [A, ActionRule<R, S, T, P>][];
  for (const [name, rule] of entries)
    if (!rule.triggers && !rule.statuses)
      throw new Error(`${machine.name} actions: '${name}' names neither triggers nor statuses`);
  return {
    names: entries.map(([name]) => name),
    of(row, viewer) {
      const status = statusOf(row);
      const out: A[] = [];
      for (const [name, rule] of entries) {
        if (!viewer.permissions.has(rule.permission)) continue;
        if (rule.sandboxOnly && !viewer.sandbox) continue;
        if (rule.triggers && !rule.triggers.some((t) => machine.can(t, status))) continue;
        if (rule.statuses && !rule.statuses(status)) continue;
        if (rule.when && !rule.when(row, viewer)) continue;
        out.push(name);
      }
      return out;
    },
  };
}

/** The response field: an array of the feature's action names, documented per action. */
export function allowedActionsSchema<A extends string>(
  actions: { readonly names: readonly A[] },
  described: { readonly [K in A]: string },
) {
  const lines = actions.names.map((name) => `\`${name}\`: ${described[name]}`);
  return Type.Array(Type.Enum(actions.names), {
    description:
      "What the caller can do with this resource now, from its status machine and the token's permissions " +
      `(an action not listed is refused). ${lines.join('; ')}.`,
  });
}

/** A viewer that can take no action (staff views of client resources). */
export const NO_ACTIONS: ActionViewer<never> = { permissions: new Set<never>(), sandbox: false };
