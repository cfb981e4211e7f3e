/** Who a project's payments go to: its opco's settlement account and Sub-TPP id (what a real network needs). */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { opcos, projects } from '../../db/schema/index';
import type { Payee } from '../../providers/bank/port';

export async function payeeOfProject(db: Db, projectId: string): Promise<Payee | null> {
  const [row] = await db
    .select({
      name: opcos.name,
      legalName: opcos.legalEntityName,
      iban: opcos.settlementIban,
      bic: opcos.settlementBic,
      subTppId: opcos.subTppId,
    })
    .from(projects)
    .innerJoin(opcos, eq(opcos.id, projects.opcoId))
    .where(eq(projects.id, projectId));
  if (!row) return null;
  return { name: row.legalName ?? row.name, iban: row.iban, bic: row.bic, subTppId: row.subTppId };
}
