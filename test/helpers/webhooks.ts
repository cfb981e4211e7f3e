/** Helpers for webhook tests: emit events through the real outbox, read deliveries, check signatures independently. */
import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { clients, webhookDeliveries, webhookDeliveryAttempts } from '../../src/db/schema/index';
import { emitEvent } from '../../src/outbox/emit';
import type { AnyEventType } from '../../src/outbox/event-types';
import { newId } from '../../src/shared/ids';
import type { TestContext } from './app';
import type { ReceivedRequest } from './receiver';

export async function emitTestEvent(
  ctx: TestContext,
  clientId: string,
  type: AnyEventType,
  data: Record<string, unknown> = {},
  opts: { occurredAt?: Date; dedupKey?: string } = {},
) {
  return ctx.db.transaction((tx) =>
    emitEvent(tx, {
      clientId,
      type,
      data,
      occurredAt: opts.occurredAt ?? ctx.clock.now(),
      dedupKey: opts.dedupKey ?? `test:${newId()}`,
    }),
  );
}

export async function setMainWebhook(ctx: TestContext, clientId: string, url: string | null, enabled = true) {
  await ctx.db
    .update(clients)
    .set({ webhookUrl: url, webhookEnabled: enabled })
    .where(eq(clients.id, clientId));
}

export const deliveriesOfEvent = (ctx: TestContext, eventId: string) =>
  ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));

export const attemptsOf = (ctx: TestContext, deliveryId: string) =>
  ctx.db
    .select()
    .from(webhookDeliveryAttempts)
    .where(eq(webhookDeliveryAttempts.deliveryId, deliveryId))
    .orderBy(webhookDeliveryAttempts.attempt);

/** Independent check with node:crypto (not the service's helper). */
export function signatureMatches(secret: string, req: ReceivedRequest): boolean {
  const ts = String(req.headers['x-svc-timestamp']);
  const expected = `sha256=${createHmac('sha256', secret).update(`${ts}.${req.rawBody}`).digest('hex')}`;
  return req.headers['x-svc-signature'] === expected;
}
