/** Wallet screening test helpers: one-line API calls, events of a client, and the pass that runs the due timers now. */
import { and, asc, eq } from 'drizzle-orm';
import { events } from '../../src/db/schema/index';
import { runDueScreeningTimers } from '../../src/modules/screening/screening.jobs';
import type { TestContext } from '../helpers/app';

export function api(ctx: TestContext) {
  return (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
    ctx.app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

/** An EVM address (lowercase, so no checksum applies) ending in `suffix`, unique per call. */
let seq = 0;
export function evm(suffix: string): string {
  seq++;
  const body = `${seq.toString(16).padStart(8, '0')}${'c'.repeat(40)}`.slice(0, 40 - suffix.length);
  return `0x${body}${suffix}`;
}

export async function eventsOf(ctx: TestContext, clientId: string, type: string) {
  const rows = await ctx.db
    .select()
    .from(events)
    .where(and(eq(events.clientId, clientId), eq(events.type, type)))
    .orderBy(asc(events.id));
  return rows.map((r) => r.data as Record<string, unknown>);
}

export const runDueTimers = (ctx: TestContext) => runDueScreeningTimers(ctx.deps);
