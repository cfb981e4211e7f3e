/**
 * Outbox health for /metrics, read from the database at scrape time (so every node reports the
 * same cluster-wide backlog): deliveries due now and the age of the oldest one.
 */
import { sql } from 'drizzle-orm';
import { Gauge, type Registry } from 'prom-client';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';

export function registerWebhookMetrics(registry: Registry, deps: Deps): void {
  if (registry.getSingleMetric('webhook_deliveries_due')) return;
  const read = async () => {
    const now = deps.clock.now().toISOString();
    const res = await deps.db.execute(sql`
      select count(*)::int as due,
             coalesce(extract(epoch from (${now}::timestamptz - min(next_attempt_at))), 0)::float8 as oldest
        from webhook_deliveries
       where status in ('pending', 'retrying') and next_attempt_at <= ${now}::timestamptz`);
    return rowsOf<{ due: number; oldest: number }>(res)[0] ?? { due: 0, oldest: 0 };
  };
  new Gauge({
    name: 'webhook_deliveries_due',
    help: 'Webhook deliveries due now (pending or retrying), all nodes',
    registers: [registry],
    async collect() {
      this.set(Number((await read()).due));
    },
  });
  new Gauge({
    name: 'webhook_deliveries_oldest_due_seconds',
    help: 'How long the oldest due webhook delivery has been waiting',
    registers: [registry],
    async collect() {
      this.set(Math.max(0, Number((await read()).oldest)));
    },
  });
}
