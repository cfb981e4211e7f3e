/** Staff broadcast (POST /admin/notifications): maintenance announcements to one client or all. */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { invalidField, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { recordActivity } from '../activity/activity-writer.service';
import { ROLES } from '../auth/team/permissions.policy';
import type { BroadcastInput } from './notifications.schemas';
import { notify } from './notify.service';

export async function broadcast(deps: Pick<Deps, 'db' | 'clock'>, input: BroadcastInput) {
  if (input.client_id && input.all_clients)
    throw invalidField(['body', 'all_clients'], 'Give either client_id or all_clients, not both');
  if (!input.client_id && input.all_clients !== true)
    throw invalidField(['body', 'client_id'], 'client_id is required unless all_clients is true', 'missing');
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const clients = rowsOf<{ id: string }>(
      input.client_id
        ? await tx.execute(sql`select id from clients where id = ${input.client_id}::uuid`)
        : await tx.execute(sql`select id from clients where is_active order by id`),
    );
    if (input.client_id && clients.length === 0) throw notFound(M.clientNotFound);
    let recipients = 0;
    for (const c of clients) {
      const n = await notify(tx, {
        clientId: c.id,
        category: 'system',
        severity: input.severity,
        title: input.title,
        body: input.body,
        audience: { roles: input.roles ?? ROLES },
        at: now,
      });
      recipients += n;
      await recordActivity(tx, {
        clientId: c.id,
        action: 'notification.broadcast',
        at: now,
        target: { type: 'client', id: c.id, label: null },
        metadata: { title: input.title, severity: input.severity, roles: input.roles ?? null, recipients: n },
      });
    }
    return { recipients };
  });
}
