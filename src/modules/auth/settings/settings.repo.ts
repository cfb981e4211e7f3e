/** The client's integration settings live on the clients row. */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { clients } from '../../../db/schema/index';

export interface SettingsRow {
  callbackUrl: string | null;
  webhookUrl: string | null;
  webhookEnabled: boolean;
}

const columns = {
  callbackUrl: clients.callbackUrl,
  webhookUrl: clients.webhookUrl,
  webhookEnabled: clients.webhookEnabled,
};

export async function findSettings(
  db: DbOrTx,
  clientId: string,
  forUpdate = false,
): Promise<SettingsRow | undefined> {
  const q = db.select(columns).from(clients).where(eq(clients.id, clientId));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function saveSettings(
  db: DbOrTx,
  clientId: string,
  values: SettingsRow & { updatedAt: Date },
): Promise<SettingsRow> {
  const [row] = await db.update(clients).set(values).where(eq(clients.id, clientId)).returning(columns);
  return row!;
}
