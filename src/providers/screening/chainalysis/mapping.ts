/**
 * Chainalysis vocabulary <-> the screening port's (docs/vendors/chainalysis.md has the sources and
 * the category table). Nothing Chainalysis names leaves this file: its risk ratings, category names
 * and cluster categories become the spec's risk fields; its cluster *name* (the entity, e.g. an
 * exchange's name) is kept, as the spec's `cluster.name` asks for it.
 *
 * Entity Risking API, GET /v2/entities/{address} (https://docs.chainalysis.com/api/address-screening/):
 * `risk` (Low, Medium, High, Severe), `riskReason`, `cluster {name, category}`,
 * `addressIdentifications [{name, category, …}]`, `exposures [{category, value, exposureType,
 * direction}]` (value in USD; exposureType `direct`/`indirect` and direction since May 2024).
 * Sanctions API, GET /api/v1/address/{address}
 * (https://auth-developers.chainalysis.com/sanctions-screening/api-reference/reference/check-if-an-address-is-sanctioned):
 * `identifications [{category, name, description, url}]`, empty when the address is not listed.
 */
import { add, decimal, fromUnits, isDecimal, round } from '../../../platform/decimal';
import { type Chain, isEvm } from '../../../shared/chain-addresses';
import type { RiskCategory, RiskLevel, WalletRisk } from '../port';

// ---- the vendor's documents (only the fields the adapter reads) ----

export interface ChainalysisCluster {
  name?: string | null;
  category?: string | null;
}

export interface ChainalysisIdentification {
  name?: string | null;
  category?: string | null;
  description?: string | null;
  url?: string | null;
}

export interface ChainalysisExposure {
  category?: string | null;
  /** USD; the documentation's examples show both a JSON number and a string. */
  value?: number | string | null;
  exposureType?: string | null;
  direction?: string | null;
}

export interface ChainalysisEntity {
  address?: string;
  risk?: string | null;
  riskReason?: string | null;
  cluster?: ChainalysisCluster | null;
  addressIdentifications?: ChainalysisIdentification[] | null;
  exposures?: ChainalysisExposure[] | null;
  status?: string | null;
}

export interface ChainalysisSanctionsAnswer {
  identifications?: ChainalysisIdentification[] | null;
}

/** A document that does not have the documented shape: the call is answered but unusable. */
export class ChainalysisMalformedError extends Error {
  constructor(what: string) {
    super(`chainalysis answer malformed: ${what}`);
    this.name = 'ChainalysisMalformedError';
  }
}

// ---- addresses: what we send ----

/**
 * The address in the form sent to Chainalysis. The Entity Risking API takes the address alone (no
 * asset or network since June 2022), so the chain is not sent: an EVM address is assessed across the
 * EVM networks. EVM: lowercase hex (the form of the Sanctions API's own example; a checksummed or
 * all-caps input is the same address). Bech32/bech32m (bc1…, ltc1…, tb1…): lowercase, the canonical
 * form (BIP-173 allows all-caps for QR codes only). Base58 (Bitcoin/Litecoin legacy, Tron, Solana):
 * exactly as given, as base58 is case-sensitive.
 */
export function vendorAddress(chain: Chain | string, address: string): string {
  const a = address.trim();
  if (isEvm(chain as Chain)) return a.toLowerCase();
  if ((chain === 'bitcoin' || chain === 'litecoin') && /^(bc|tb|ltc|tltc)1/i.test(a)) return a.toLowerCase();
  return a;
}

// ---- risk ----

/**
 * Chainalysis rates an address Low, Medium, High or Severe (no number). Our score is the middle of
 * the spec's band for that level, so the band of the score is the level again.
 */
export const RISK_SCORE: Record<string, { level: RiskLevel; score: number }> = {
  low: { level: 'low', score: 15 },
  medium: { level: 'medium', score: 45 },
  high: { level: 'high', score: 72 },
  severe: { level: 'severe', score: 92 },
};

/**
 * Chainalysis category names -> ours. Compared lower-cased with spaces, hyphens and underscores as
 * one space; a name not in the table is `other`. See docs/vendors/chainalysis.md ("Categories").
 */
export const CATEGORY_MAP: Readonly<Record<string, RiskCategory>> = {
  sanctions: 'sanctions',
  'sanctioned entity': 'sanctions',
  // Being in a sanctioned jurisdiction is not a designation: `other`, never a sanctions hit; an
  // address or cluster identified so is at least high risk (riskFromEntity).
  'sanctioned jurisdiction': 'other',
  'terrorist financing': 'terrorist_financing',
  'darknet market': 'darknet_market',
  ransomware: 'ransomware',
  scam: 'scam',
  'fraud shop': 'scam',
  'stolen funds': 'stolen_funds',
  'stolen bitcoins': 'stolen_funds',
  mixing: 'mixer',
  mixer: 'mixer',
  gambling: 'gambling',
  'online gambling': 'gambling',
  'no kyc exchange': 'unlicensed_exchange',
  'high risk exchange': 'unlicensed_exchange',
  exchange: 'exchange',
  'decentralized exchange': 'defi',
  'decentralized exchange contract': 'defi',
  defi: 'defi',
  'lending contract': 'defi',
  lending: 'defi',
  bridge: 'defi',
  'p2p exchange': 'p2p_exchange',
  'peer to peer exchange': 'p2p_exchange',
  atm: 'atm',
};

const norm = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ');

export function categoryOf(name: string | null | undefined): RiskCategory | null {
  if (!name?.trim()) return null;
  return CATEGORY_MAP[norm(name)] ?? 'other';
}

const SANCTIONS: ReadonlySet<RiskCategory> = new Set(['sanctions']);

/** A Chainalysis category naming a sanctioned jurisdiction (not a designation of the address). */
const isJurisdiction = (name: string | null | undefined) =>
  !!name && norm(name) === 'sanctioned jurisdiction';

/** A USD value as a decimal string with 2 decimals (exact from a string; a JSON number via its shortest form). */
export function usd(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  let s = typeof value === 'number' ? (Number.isFinite(value) ? value.toFixed(6) : '') : value.trim();
  if (s.startsWith('+')) s = s.slice(1);
  if (!isDecimal(s) || s.startsWith('-')) return null;
  return round(s, 2, 'half-up');
}

/** Percent of `part` in `total` (decimal strings), 0-100 with 2 decimals, as a number. */
function percentOf(part: string, total: string): number {
  const p = decimal(round(part, 2, 'half-up')).units;
  const t = decimal(round(total, 2, 'half-up')).units;
  if (t <= 0n) return 0;
  // Half up at 2 decimals: (p / t * 100) rounded, in integer arithmetic.
  return Number(fromUnits((p * 20000n + t) / (2n * t), 2));
}

type Direction = 'incoming' | 'outgoing';

/**
 * Chainalysis's exposure direction: `received`/`incoming` and `sent`/`outgoing`; `both_directions`
 * (the documentation's example) is reported under both, with the same amount, so a rule on either
 * direction sees it. Anything else is treated as both (never dropped).
 */
function directionsOf(direction: string | null | undefined): Direction[] {
  const d = norm(direction ?? '');
  if (d === 'received' || d === 'incoming' || d === 'receiving') return ['incoming'];
  if (d === 'sent' || d === 'outgoing' || d === 'sending') return ['outgoing'];
  return ['incoming', 'outgoing'];
}

function exposuresOf(list: ChainalysisExposure[]): WalletRisk['exposures'] {
  const rows: {
    category: RiskCategory;
    direction: Direction;
    type: 'direct' | 'indirect';
    amount: string | null;
  }[] = [];
  for (const e of list) {
    const category = categoryOf(e.category);
    if (!category) continue;
    // A known category with a missing or unreadable value is kept, its amount unknown (null, 0 %).
    const amount = usd(e.value);
    const type = norm(e.exposureType ?? '') === 'indirect' ? 'indirect' : 'direct';
    for (const direction of directionsOf(e.direction)) rows.push({ category, direction, type, amount });
  }
  // The share of each row in the total of its direction (what Chainalysis's exposure settings compare).
  const totals = new Map<Direction, string>();
  for (const r of rows)
    if (r.amount !== null) totals.set(r.direction, add(totals.get(r.direction) ?? '0', r.amount));
  return rows.map((r) => ({
    category: r.category,
    direction: r.direction,
    exposure_type: r.type,
    percentage: r.amount === null ? 0 : percentOf(r.amount, totals.get(r.direction) ?? '0'),
    amount_usd: r.amount,
  }));
}

/** The reason we give for a level: Chainalysis's `riskReason` is its own wording, so it is not passed on. */
function reasonsOf(
  level: RiskLevel,
  sanctionsHit: boolean,
  jurisdiction: boolean,
  cluster: WalletRisk['cluster'],
  direct: RiskCategory[],
  exposures: WalletRisk['exposures'],
): string[] {
  const reasons: string[] = [];
  if (sanctionsHit) reasons.push('The address is identified as belonging to a sanctioned entity');
  if (jurisdiction) reasons.push('The address is linked to a sanctioned jurisdiction');
  if (cluster && cluster.category !== 'other')
    reasons.push(`The address belongs to a cluster of category ${cluster.category}`);
  for (const c of direct.filter((c) => c !== 'sanctions'))
    reasons.push(`The address is identified with category ${c}`);
  const risky = [
    ...new Set(exposures.filter((e) => !['exchange', 'other'].includes(e.category)).map((e) => e.category)),
  ];
  if (risky.length > 0) reasons.push(`Exposure to ${risky.join(', ')}`);
  if (reasons.length === 0) reasons.push(`The provider rates the address ${level} risk`);
  return reasons;
}

/**
 * The Entity Risking API's answer as our risk fields. A sanctions identification (of the address or
 * its cluster) is a sanctions hit, always severe. A *Low* rating with nothing behind it (no cluster,
 * no identification, no exposure) is "no data": `unknown`, score 0, never low. Any other rating is
 * data even with nothing behind it (a Severe or High can come from the account's own settings or
 * from exposures without a value): the vendor's level is kept.
 */
export function riskFromEntity(doc: ChainalysisEntity): WalletRisk {
  if (!doc || typeof doc !== 'object') throw new ChainalysisMalformedError('not an object');
  const rating = RISK_SCORE[norm(String(doc.risk ?? ''))];
  if (!rating) throw new ChainalysisMalformedError('risk is not Low, Medium, High or Severe');
  if (doc.exposures != null && !Array.isArray(doc.exposures))
    throw new ChainalysisMalformedError('exposures is not a list');
  if (doc.addressIdentifications != null && !Array.isArray(doc.addressIdentifications))
    throw new ChainalysisMalformedError('addressIdentifications is not a list');
  const identified = (doc.addressIdentifications ?? [])
    .map((i) => categoryOf(i?.category))
    .filter((c): c is RiskCategory => c !== null);
  const clusterCategory = categoryOf(doc.cluster?.category);
  const cluster =
    doc.cluster && (doc.cluster.name || clusterCategory)
      ? { name: String(doc.cluster.name ?? ''), category: clusterCategory ?? 'other' }
      : null;
  const exposures = exposuresOf(doc.exposures ?? []);
  const sanctionsHit =
    identified.some((c) => SANCTIONS.has(c)) || (clusterCategory !== null && SANCTIONS.has(clusterCategory));
  const direct = [...new Set(identified)];
  const categories = [
    ...new Set<RiskCategory>([
      ...(sanctionsHit ? (['sanctions'] as RiskCategory[]) : []),
      ...direct,
      ...(clusterCategory ? [clusterCategory] : []),
      ...exposures.map((e) => e.category as RiskCategory),
    ]),
  ];
  const nothingBehind = !sanctionsHit && !cluster && direct.length === 0 && exposures.length === 0;
  if (rating.level === 'low' && nothingBehind) return noDataRisk();
  const jurisdiction =
    (doc.addressIdentifications ?? []).some((i) => isJurisdiction(i?.category)) ||
    isJurisdiction(doc.cluster?.category);
  // A sanctions designation is severe; a sanctioned jurisdiction is at least high (never a hit).
  const floor = sanctionsHit ? RISK_SCORE.severe! : jurisdiction ? RISK_SCORE.high! : null;
  const raised = floor !== null && floor.score > rating.score;
  const level: RiskLevel = raised ? floor.level : rating.level;
  const score = raised ? floor.score : rating.score;
  return {
    risk_level: level,
    risk_score: score,
    sanctions_hit: sanctionsHit,
    categories,
    exposures,
    cluster,
    risk_reasons: reasonsOf(level, sanctionsHit, jurisdiction, cluster, direct, exposures),
  };
}

/** No data about the address: `unknown`, score 0 (never low). */
export function noDataRisk(): WalletRisk {
  return {
    risk_level: 'unknown',
    risk_score: 0,
    sanctions_hit: false,
    categories: [],
    exposures: [],
    cluster: null,
    risk_reasons: ['The provider has no information about this address'],
  };
}

/** What the Sanctions API's answer says: listed or not; throws on a malformed answer. */
export function sanctionsListed(doc: ChainalysisSanctionsAnswer): boolean {
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.identifications))
    throw new ChainalysisMalformedError('identifications is not a list');
  // Every identification this API returns is a sanctions designation (its documented purpose);
  // an entry of another category is still read as listed rather than silently dropped.
  return doc.identifications.length > 0;
}

/** A sanctions designation found by the Sanctions API: severe, sanctions hit, category sanctions. */
export function sanctionedRisk(): WalletRisk {
  return {
    risk_level: 'severe',
    risk_score: 100,
    sanctions_hit: true,
    categories: ['sanctions'],
    exposures: [],
    cluster: null,
    risk_reasons: ['The address is on a sanctions list'],
  };
}

/** The reason of a clean sanctions-only answer (SVC_SCREENING_PROVIDER=chainalysis-sanctions). */
export const SANCTIONS_ONLY_REASON =
  'Only sanctions lists were checked: the address is not on them. No other risk information is available, so the risk is unknown';

/** A clean answer of the Sanctions API alone: unknown (score 0), never low. */
export function sanctionsOnlyClean(): WalletRisk {
  return { ...noDataRisk(), risk_reasons: [SANCTIONS_ONLY_REASON] };
}
