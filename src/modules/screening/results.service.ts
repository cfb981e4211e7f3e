/**
 * Applies a provider outcome to a pending screening, in one transaction: the screening's risk fields,
 * the wallet's mirror of them, `screening.wallet.completed`, the activity entry and, when a monitored
 * wallet's risk rises to high or severe, the owner/operations notification. A final screening never
 * changes again (replays and older notifications are no-ops).
 */
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { emitEvent } from '../../outbox/emit';
import { cancelTimer, timerRef } from '../../platform/jobs/index';
import {
  RISK_CATEGORIES,
  RISK_LEVELS,
  type RiskLevel,
  type ScreenOutcome,
  type WalletRisk,
} from '../../providers/screening/port';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import {
  findScreening,
  findWallet,
  type ScreeningRow,
  updateScreening,
  updateWallet,
} from './screening.repo';

/**
 * The retry timer of a pending screening at a polled provider (`ScreeningProvider.polled`: a vendor
 * that answers only when asked). Written with the pending screening, so a crash between recording it
 * and asking the vendor is recovered; moved on each 429 or outage; a final screening makes it a no-op.
 * `failures` counts the vendor's unavailable answers so far (429s never count).
 */
export const SCREENING_RETRY = timerRef<{ screeningId: string; failures: number }>({
  kind: 'screening.provider_retry',
  keyOf: (p) => `screening-retry:${p.screeningId}`,
});

const RANK: Record<RiskLevel, number> = { unknown: 0, low: 1, medium: 2, high: 3, severe: 4 };

/** The band of a score: 1-29 low, 30-59 medium, 60-84 high, 85-100 severe; 0 is no data (unknown). */
export function bandOf(score: number): RiskLevel {
  if (score <= 0) return 'unknown';
  if (score < 30) return 'low';
  if (score < 60) return 'medium';
  if (score < 85) return 'high';
  return 'severe';
}

/**
 * Normalizes a provider's risk to the contract: a sanctions hit is always severe (and carries the
 * `sanctions` category); unknown has score 0; otherwise the level is the score's band. Unknown
 * categories become `other`; unknown is never turned into low.
 */
export function normalizeRisk(r: WalletRisk): WalletRisk {
  const known = new Set<string>(RISK_CATEGORIES);
  const categories = [
    ...new Set((r.categories ?? []).map((c) => (known.has(c) ? c : 'other'))),
  ] as WalletRisk['categories'];
  let score = Math.max(0, Math.min(100, Math.round(Number(r.risk_score) || 0)));
  let level: RiskLevel = RISK_LEVELS.includes(r.risk_level) ? r.risk_level : 'unknown';
  const sanctions = r.sanctions_hit === true;
  if (sanctions) {
    level = 'severe';
    score = Math.max(score, 85);
    if (!categories.includes('sanctions')) categories.unshift('sanctions');
  } else if (level === 'unknown') score = 0;
  else if (score === 0) level = 'unknown';
  else level = bandOf(score);
  return { ...r, risk_level: level, risk_score: score, sanctions_hit: sanctions, categories };
}

type D = Pick<Deps, 'db' | 'clock'>;

/** Applies `outcome` to the screening (if still pending and `revision` is newer). Returns the screening. */
export async function applyScreeningOutcome(
  deps: D,
  screeningId: string,
  outcome: Exclude<ScreenOutcome, { status: 'pending' }>,
  revision: number,
): Promise<{ applied: boolean; screening: ScreeningRow | null }> {
  return deps.db.transaction(async (tx) => {
    const s = await findScreening(tx, null, screeningId, true);
    if (!s) return { applied: false, screening: null };
    if (s.status !== 'pending' || revision <= s.providerRevision) return { applied: false, screening: s };
    return { applied: true, screening: await completeInTx(tx, deps.clock.now(), s, outcome, revision) };
  });
}

async function completeInTx(
  tx: DbOrTx,
  now: Date,
  s: ScreeningRow,
  outcome: Exclude<ScreenOutcome, { status: 'pending' }>,
  revision: number,
): Promise<ScreeningRow> {
  const wallet = (await findWallet(tx, s.clientId, s.walletId, true))!;
  await cancelTimer(tx, SCREENING_RETRY, { screeningId: s.id, failures: 0 });
  const previous = (wallet.riskLevel ?? 'unknown') as RiskLevel;
  let updated: ScreeningRow;
  if (outcome.status === 'completed') {
    const r = normalizeRisk(outcome.risk);
    updated = await updateScreening(tx, s.id, {
      status: 'completed',
      riskLevel: r.risk_level,
      riskScore: r.risk_score,
      sanctionsHit: r.sanctions_hit,
      categories: r.categories,
      exposures: r.exposures ?? [],
      cluster: r.cluster ?? null,
      riskReasons: r.risk_reasons ?? [],
      previousRiskLevel: previous,
      providerRevision: revision,
      completedAt: now,
    });
    await updateWallet(tx, wallet.id, {
      riskLevel: r.risk_level,
      riskScore: r.risk_score,
      sanctionsHit: r.sanctions_hit,
      latestScreeningId: s.id,
      lastScreenedAt: now,
      updatedAt: now,
    });
    if (wallet.monitored && RANK[r.risk_level] >= RANK.high && RANK[r.risk_level] > RANK[previous])
      await notify(tx, {
        clientId: s.clientId,
        category: 'screening',
        severity: 'critical',
        title: `Wallet risk rose to ${r.risk_level}`,
        body: `${s.chain} wallet ${s.address} is now ${r.risk_level} risk (was ${previous}).`,
        item: { type: 'wallet', id: wallet.id },
        audience: { roles: OWNER_AND_OPERATIONS },
        at: now,
      });
  } else {
    updated = await updateScreening(tx, s.id, {
      status: 'failed',
      failureReason: outcome.reason,
      previousRiskLevel: previous,
      providerRevision: revision,
      completedAt: now,
    });
  }
  await emitEvent(tx, {
    clientId: s.clientId,
    type: 'screening.wallet.completed',
    data: {
      screening_id: s.id,
      wallet_id: s.walletId,
      chain: s.chain,
      address: s.address,
      status: updated.status,
      risk_level: updated.riskLevel,
      previous_risk_level: previous,
      risk_score: updated.riskScore,
      sanctions_hit: updated.sanctionsHit,
      categories: updated.categories,
      client_reference: s.clientReference,
      trigger: s.trigger,
    },
    occurredAt: now,
    dedupKey: `screening:${s.id}:final`,
  });
  await recordActivity(tx, {
    clientId: s.clientId,
    action: `wallet_screening.${updated.status}`,
    at: now,
    target: { type: 'wallet_screening', id: s.id, label: `${s.chain} ${s.address}` },
    metadata: { wallet_id: s.walletId, risk_level: updated.riskLevel, trigger: s.trigger },
  });
  return updated;
}
