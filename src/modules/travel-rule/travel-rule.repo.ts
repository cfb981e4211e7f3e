/** Data access of the travel rule: settings, transfers (with the linked screening's risk), list with `q`. */
import { and, count, desc, eq, gte, ilike, lt, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { screeningWallets, walletScreenings } from '../../db/schema/screening';
import { type TransferStatus, travelRuleSettings, travelRuleTransfers } from '../../db/schema/travel-rule';
import { containsPattern, type PageParams } from '../../shared/pagination';
import type { TransferRow } from './travel-rule.machine';

export type SettingsRow = typeof travelRuleSettings.$inferSelect;
export type TransferWithRisk = TransferRow & { riskLevel: string | null };

export async function findSettings(db: DbOrTx, clientId: string): Promise<SettingsRow | null> {
  const [row] = await db.select().from(travelRuleSettings).where(eq(travelRuleSettings.clientId, clientId));
  return row ?? null;
}

export async function upsertSettings(tx: DbOrTx, values: typeof travelRuleSettings.$inferInsert) {
  const [row] = await tx
    .insert(travelRuleSettings)
    .values(values)
    .onConflictDoUpdate({
      target: travelRuleSettings.clientId,
      set: {
        thresholdAmount: values.thresholdAmount,
        thresholdCurrency: values.thresholdCurrency,
        originatorVasp: values.originatorVasp,
        screenCounterpartyWallet: values.screenCounterpartyWallet,
        updatedAt: values.updatedAt,
      },
    })
    .returning();
  return row!;
}

export async function insertTransfer(tx: DbOrTx, values: typeof travelRuleTransfers.$inferInsert) {
  const [row] = await tx.insert(travelRuleTransfers).values(values).returning();
  return row!;
}

export async function updateTransfer(tx: DbOrTx, id: string, set: Partial<TransferRow>) {
  const [row] = await tx
    .update(travelRuleTransfers)
    .set(set)
    .where(eq(travelRuleTransfers.id, id))
    .returning();
  return row!;
}

/** The client's transfer (any client when clientId is null), optionally locked FOR UPDATE. */
export async function findTransfer(db: DbOrTx, clientId: string | null, id: string, forUpdate = false) {
  const t = travelRuleTransfers;
  const where = clientId ? and(eq(t.id, id), eq(t.clientId, clientId)) : eq(t.id, id);
  const q = db.select().from(t).where(where);
  const [row] = forUpdate ? await q.for('update') : await q;
  return row ?? null;
}

/** The clients holding a wallet with this address on `chain` (any client: the network names only the wallet). */
export async function findWalletOwners(db: DbOrTx, chain: string, normalized: string): Promise<string[]> {
  const w = screeningWallets;
  const rows = await db
    .selectDistinct({ clientId: w.clientId })
    .from(w)
    .where(and(eq(w.chain, chain), eq(w.normalizedAddress, normalized)));
  return rows.map((r) => r.clientId);
}

export async function findByNetworkRef(db: DbOrTx, ref: string) {
  const [row] = await db.select().from(travelRuleTransfers).where(eq(travelRuleTransfers.networkRef, ref));
  return row ?? null;
}

const withRisk = {
  row: travelRuleTransfers,
  riskLevel: walletScreenings.riskLevel,
};

function joinRisk(db: DbOrTx) {
  return db
    .select(withRisk)
    .from(travelRuleTransfers)
    .leftJoin(walletScreenings, eq(walletScreenings.id, travelRuleTransfers.screeningId));
}

const flat = (r: { row: TransferRow; riskLevel: string | null }): TransferWithRisk => ({
  ...r.row,
  riskLevel: r.riskLevel,
});

export async function getTransferWithRisk(db: DbOrTx, clientId: string, id: string) {
  const [row] = await joinRisk(db).where(
    and(eq(travelRuleTransfers.id, id), eq(travelRuleTransfers.clientId, clientId)),
  );
  return row ? flat(row) : null;
}

export interface TransferFilters {
  q?: string;
  status?: TransferStatus;
  direction?: string;
  asset?: string;
  chain?: string;
  from?: string;
  to?: string;
}

export async function listTransfers(db: DbOrTx, clientId: string, f: TransferFilters, p: PageParams) {
  const t = travelRuleTransfers;
  const conds: (SQL | undefined)[] = [eq(t.clientId, clientId)];
  if (f.q) {
    const pattern = containsPattern(f.q);
    const party = (col: typeof t.originator | typeof t.beneficiary) =>
      sql`concat_ws(' ', ${col} ->> 'first_name', ${col} ->> 'last_name', ${col} ->> 'legal_name') ilike ${pattern}`;
    conds.push(
      or(
        ilike(t.clientReference, pattern),
        party(t.originator),
        party(t.beneficiary),
        ilike(t.counterpartyAddress, pattern),
        ilike(t.txHash, pattern),
      ),
    );
  }
  if (f.status) conds.push(eq(t.status, f.status));
  if (f.direction) conds.push(eq(t.direction, f.direction));
  if (f.asset) conds.push(eq(t.asset, f.asset));
  if (f.chain) conds.push(eq(t.chain, f.chain));
  if (f.from) conds.push(gte(t.createdAt, new Date(f.from)));
  if (f.to) conds.push(lt(t.createdAt, new Date(f.to)));
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    joinRisk(db).where(where).orderBy(desc(t.createdAt), desc(t.id)).limit(p.pageSize).offset(p.offset),
    db.select({ n: count() }).from(t).where(where),
  ]);
  return { rows: rows.map(flat), total: total?.n ?? 0 };
}
