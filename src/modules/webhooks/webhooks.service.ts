/** Webhook configuration, destinations, test events, delivery history and manual retries. */
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { createMainWebhookSecretIfAbsent, newWebhookSecret } from '../../outbox/delivery-store';
import { emitEvent } from '../../outbox/emit';
import { EVENT_TYPES } from '../../outbox/event-types';
import { assertPublicHost, ForbiddenTargetError, hostOf, parseWebhookUrl } from '../../outbox/ssrf';
import { encrypt } from '../../shared/crypto';
import { badRequest, conflict, invalidField, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { M } from '../../shared/messages';
import { type ActivityChanges, diffChanges, recordActivity } from '../activity/activity-writer.service';
import { isTerminalDelivery, nextDeliveryStatus } from './webhooks.machine';
import * as repo from './webhooks.repo';

export const TEST_EVENT_MESSAGE = 'This is a test event sent from the webhook settings.';

/** http(s) only; in production the host must resolve to public addresses only (SSRF). 422 otherwise. */
export async function validateTargetUrl(
  deps: Deps,
  value: string,
  loc: (string | number)[],
): Promise<string> {
  const u = parseWebhookUrl(value);
  if (!u || value.length > 2048) throw invalidField(loc, M.webhookUrlInvalid);
  if (deps.config.environment === 'production') {
    try {
      await assertPublicHost(hostOf(u), undefined, deps.config.webhookAllowedPrivateTargets);
    } catch (err) {
      if (err instanceof ForbiddenTargetError) throw invalidField(loc, M.webhookUrlNotPublic);
      throw err;
    }
  }
  return value.trim();
}

function validateEventTypes(types: string[] | undefined, loc: string[]): string[] | undefined {
  if (types === undefined) return undefined;
  types.forEach((t, i) => {
    if (!(EVENT_TYPES as readonly string[]).includes(t))
      throw invalidField([...loc, i], M.webhookEventTypeUnknown);
  });
  return [...new Set(types)];
}

export async function getSubscription(deps: Deps, clientId: string) {
  const row = await repo.findSubscription(deps.db, clientId);
  if (!row) throw notFound(M.notFound);
  return row;
}

export async function updateSubscription(
  deps: Deps,
  clientId: string,
  body: { event_types?: string[]; webhook_url?: string | null; webhook_enabled?: boolean },
) {
  const current = await getSubscription(deps, clientId);
  const eventTypes = validateEventTypes(body.event_types, ['body', 'event_types']);
  let url = current.webhookUrl;
  if (body.webhook_url !== undefined)
    url =
      body.webhook_url === null || body.webhook_url === ''
        ? null
        : await validateTargetUrl(deps, body.webhook_url, ['body', 'webhook_url']);
  const enabled = body.webhook_enabled ?? (url === null ? false : current.webhookEnabled);
  if (enabled && !url) throw badRequest(M.webhookUrlRequired);
  return deps.db.transaction(async (tx) => {
    const row = await repo.updateSubscription(tx, clientId, {
      webhookUrl: url,
      webhookEnabled: enabled,
      ...(eventTypes !== undefined ? { webhookEventTypes: eventTypes } : {}),
    });
    await audit(
      deps,
      tx,
      clientId,
      'webhook_subscription.updated',
      { type: 'webhook_subscription', id: clientId },
      diffChanges(
        {
          webhook_url: current.webhookUrl,
          webhook_enabled: current.webhookEnabled,
          event_types: current.webhookEventTypes,
        },
        {
          webhook_url: row!.webhookUrl,
          webhook_enabled: row!.webhookEnabled,
          event_types: row!.webhookEventTypes,
        },
      ),
    );
    return row!;
  });
}

export const WEBHOOK_SECRET_ONCE =
  'The answer that first sets a webhook URL carries `webhook_secret`, the main signing secret, once ' +
  '(the whole `whsec_…` string is the HMAC-SHA256 key); `POST /webhooks/subscription/secret` creates or rotates it later.';

/** `{webhook_secret}` when this call gave the client its first main webhook secret (URL now set); else `{}`. */
export async function firstWebhookSecret(
  deps: Deps,
  clientId: string,
  webhookUrl: string | null,
): Promise<{ webhook_secret?: string }> {
  if (!webhookUrl) return {};
  const secret = await createMainWebhookSecretIfAbsent(deps.db, deps.secrets.encryptionKey, clientId);
  return secret ? { webhook_secret: secret } : {};
}

/** A new main webhook secret, returned once; the old one stops signing at once. */
export async function rotateWebhookSecret(deps: Deps, clientId: string): Promise<string> {
  const secret = newWebhookSecret();
  await deps.db.transaction(async (tx) => {
    const row = await repo.updateSubscription(tx, clientId, {
      webhookSecretEnc: encrypt(deps.secrets.encryptionKey, secret),
    });
    if (!row) throw notFound(M.notFound);
    await audit(
      deps,
      tx,
      clientId,
      'webhook_subscription.secret_rotated',
      { type: 'webhook_subscription', id: clientId },
      {
        webhook_secret: { from: 'old', to: 'new' },
      },
    );
  });
  return secret;
}

export async function sendTestEvent(deps: Deps, clientId: string, accountId: string | null) {
  return deps.db.transaction(async (tx) => {
    const sub = await repo.findSubscription(tx, clientId);
    if (!sub?.webhookUrl) throw badRequest(M.webhookUrlRequiredForTest);
    const event = await emitEvent(tx, {
      clientId,
      type: 'webhook.test',
      data: { message: TEST_EVENT_MESSAGE, requested_by_account_id: accountId },
      occurredAt: deps.clock.now(),
      dedupKey: `webhook.test:${newId()}`,
    });
    await audit(deps, tx, clientId, 'webhook.test_sent', { type: 'event', id: event!.id }, null);
    return event!;
  });
}

export async function createDestination(
  deps: Deps,
  clientId: string,
  body: { url: string; event_types?: string[]; description?: string | null; enabled?: boolean },
) {
  const url = await validateTargetUrl(deps, body.url, ['body', 'url']);
  const eventTypes = validateEventTypes(body.event_types, ['body', 'event_types']) ?? [];
  const secret = newWebhookSecret();
  const row = await deps.db.transaction(async (tx) => {
    const created = await repo.insertDestination(tx, {
      clientId,
      url,
      description: body.description ?? null,
      eventTypes,
      enabled: body.enabled ?? true,
      secretEnc: encrypt(deps.secrets.encryptionKey, secret),
      createdAt: deps.clock.now(),
      updatedAt: deps.clock.now(),
    });
    await audit(
      deps,
      tx,
      clientId,
      'webhook_destination.created',
      { type: 'webhook_destination', id: created.id, label: url },
      {
        url: { from: null, to: url },
        event_types: { from: null, to: eventTypes },
        enabled: { from: null, to: created.enabled },
        signing_secret: { from: null, to: 'set' },
      },
    );
    return created;
  });
  return { row, secret };
}

export const listDestinations = (deps: Deps, clientId: string, limit: number, offset: number) =>
  repo.listDestinations(deps.db, clientId, limit, offset);

export async function getDestination(deps: Deps, clientId: string, id: string) {
  const row = await repo.findDestination(deps.db, clientId, id);
  if (!row) throw notFound(M.webhookDestinationNotFound);
  return row;
}

export async function updateDestination(
  deps: Deps,
  clientId: string,
  id: string,
  body: { url?: string; event_types?: string[]; description?: string | null; enabled?: boolean },
) {
  const before = await getDestination(deps, clientId, id);
  const set: Parameters<typeof repo.updateDestination>[3] = {};
  if (body.url !== undefined) set.url = await validateTargetUrl(deps, body.url, ['body', 'url']);
  const types = validateEventTypes(body.event_types, ['body', 'event_types']);
  if (types !== undefined) set.eventTypes = types;
  if (body.description !== undefined) set.description = body.description;
  if (body.enabled !== undefined) set.enabled = body.enabled;
  return deps.db.transaction(async (tx) => {
    const row = await repo.updateDestination(tx, clientId, id, set, deps.clock.now());
    if (!row) throw notFound(M.webhookDestinationNotFound);
    const pick = (d: typeof row) => ({
      url: d.url,
      event_types: d.eventTypes,
      description: d.description,
      enabled: d.enabled,
    });
    await audit(
      deps,
      tx,
      clientId,
      'webhook_destination.updated',
      { type: 'webhook_destination', id, label: row.url },
      diffChanges(pick(before), pick(row)),
    );
    return row;
  });
}

export async function rotateDestinationSecret(deps: Deps, clientId: string, id: string): Promise<string> {
  const secret = newWebhookSecret();
  await deps.db.transaction(async (tx) => {
    const row = await repo.updateDestination(
      tx,
      clientId,
      id,
      { secretEnc: encrypt(deps.secrets.encryptionKey, secret) },
      deps.clock.now(),
    );
    if (!row) throw notFound(M.webhookDestinationNotFound);
    await audit(
      deps,
      tx,
      clientId,
      'webhook_destination.secret_rotated',
      { type: 'webhook_destination', id, label: row.url },
      {
        signing_secret: { from: 'old', to: 'new' },
      },
    );
  });
  return secret;
}

export async function deleteDestination(deps: Deps, clientId: string, id: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const row = await repo.updateDestination(tx, clientId, id, { deletedAt: now, enabled: false }, now);
    if (!row) throw notFound(M.webhookDestinationNotFound);
    await repo.closeDeliveriesOfDestination(tx, clientId, id, now);
    await audit(
      deps,
      tx,
      clientId,
      'webhook_destination.deleted',
      { type: 'webhook_destination', id, label: row.url },
      null,
    );
  });
}

export const listDeliveries = (
  deps: Deps,
  clientId: string,
  filter: repo.DeliveryFilter,
  limit: number,
  offset: number,
) => repo.listDeliveries(deps.db, clientId, filter, limit, offset);

export async function getDelivery(deps: Deps, clientId: string, id: string) {
  const row = await repo.findDelivery(deps.db, clientId, id);
  if (!row) throw notFound(M.webhookDeliveryNotFound);
  return row;
}

export async function listAttempts(deps: Deps, clientId: string, deliveryId: string) {
  await getDelivery(deps, clientId, deliveryId);
  return repo.listAttempts(deps.db, clientId, deliveryId);
}

/** Redelivers now: a finished delivery (also dead_letter) gets a fresh budget; history is kept. */
export async function retryDelivery(deps: Deps, clientId: string, id: string) {
  const now = deps.clock.now();
  const d = await getDelivery(deps, clientId, id);
  if (d.lockedUntil && d.lockedUntil > now) throw conflict(M.webhookDeliveryInFlight);
  if (d.destinationGone) throw conflict(M.webhookDestinationDeleted);
  const status = d.status;
  const to = nextDeliveryStatus(status, 'manual_retry');
  if (!to) throw conflict(M.webhookDeliveryInFlight);
  return deps.db.transaction(async (tx) => {
    const row = await repo.requeueDelivery(tx, d, to, isTerminalDelivery(status), now);
    if (!row) throw conflict(M.webhookDeliveryInFlight);
    await audit(
      deps,
      tx,
      clientId,
      'webhook_delivery.retried',
      { type: 'webhook_delivery', id, label: null },
      {
        status: { from: status, to: row.status },
      },
    );
    return row;
  });
}

function audit(
  deps: Pick<Deps, 'clock'>,
  tx: DbOrTx,
  clientId: string,
  action: string,
  target: { type: string; id: string; label?: string | null },
  changes: ActivityChanges | null,
) {
  return recordActivity(tx, { clientId, action, at: deps.clock.now(), target, changes });
}
