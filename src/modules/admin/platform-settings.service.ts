import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { platformSettings } from '../../db/schema/index';
import type { Deps } from '../../deps';

/** Self-service registration: the staff override stored in the database, else SVC_REGISTRATION_ENABLED. */
export async function isRegistrationEnabled(deps: Pick<Deps, 'db' | 'config'>): Promise<boolean> {
  const [row] = await deps.db.select().from(platformSettings).where(eq(platformSettings.id, 'global'));
  return row?.registrationEnabled ?? deps.config.registrationEnabled;
}

export async function setRegistrationEnabled(db: DbOrTx, enabled: boolean | null): Promise<void> {
  await db
    .insert(platformSettings)
    .values({ id: 'global', registrationEnabled: enabled })
    .onConflictDoUpdate({
      target: platformSettings.id,
      set: { registrationEnabled: enabled, updatedAt: sql`now()` },
    });
}
