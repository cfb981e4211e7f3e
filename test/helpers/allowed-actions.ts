/**
 * The table-driven check of a resource's allowed_actions: in a given state, the listed actions are
 * `expected`, each listed action succeeds (2xx) and each action not listed is refused with a 400/409,
 * every action on a fresh resource in that state (`make`).
 */
import { expect } from 'vitest';

interface Answer {
  statusCode: number;
  body: string;
}

export async function expectActionsAgree<A extends string>(o: {
  names: readonly A[];
  expected: readonly A[];
  make: () => Promise<string>;
  actionsOf: (id: string) => Promise<readonly string[]>;
  perform: (action: A, id: string) => Promise<Answer>;
  /** Actions the API does not refuse when not listed (nothing changes): checked by `unchanged`. */
  notRefused?: { actions: readonly A[]; unchanged: (id: string, before: unknown) => Promise<void> };
  snapshot?: (id: string) => Promise<unknown>;
}) {
  expect(await o.actionsOf(await o.make())).toEqual(o.expected);
  for (const action of o.names) {
    const id = await o.make();
    const before = await o.snapshot?.(id);
    const r = await o.perform(action, id);
    if (o.expected.includes(action)) expect(r.statusCode, `${action} is listed: ${r.body}`).toBeLessThan(300);
    else if (o.notRefused?.actions.includes(action)) await o.notRefused.unchanged(id, before);
    else expect([400, 409], `${action} is not listed: ${r.statusCode} ${r.body}`).toContain(r.statusCode);
  }
}
