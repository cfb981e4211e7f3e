/**
 * Per-client feature switches of the named areas (docs/guides/index.md). Staff store
 * overrides in clients.features; everything else comes from the environment's defaults.
 * Writes in a disabled area answer 403 `{Area} is disabled for this client`; reads still work.
 */
import { sql } from 'drizzle-orm';
import type { Environment } from '../../config';
import { type DbOrTx, rowsOf } from '../../db/client';
import { forbidden, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';

/** feature -> the {Area} of its 403 message. */
export const FEATURE_AREAS = {
  contracts: 'Contracts',
  transaction_monitoring: 'Transaction monitoring',
  wallet_screening: 'Wallet screening',
  travel_rule: 'Travel rule',
  recurring_payments: 'Recurring payments',
  payment_schedules: 'Payment schedules',
} as const;

export type Feature = keyof typeof FEATURE_AREAS;
export const FEATURES = Object.keys(FEATURE_AREAS) as Feature[];
export type FeatureSwitches = Record<Feature, boolean>;

/** All default to true in sandbox; in production travel_rule and recurring_payments default to false. */
export function defaultFeatures(environment: Environment): FeatureSwitches {
  const off =
    environment === 'production' ? new Set<Feature>(['travel_rule', 'recurring_payments']) : new Set();
  return Object.fromEntries(FEATURES.map((f) => [f, !off.has(f)])) as FeatureSwitches;
}

export function effectiveFeatures(
  environment: Environment,
  overrides: Partial<Record<string, boolean>> | null | undefined,
): FeatureSwitches {
  const out = defaultFeatures(environment);
  for (const f of FEATURES) {
    const v = overrides?.[f];
    if (typeof v === 'boolean') out[f] = v;
  }
  return out;
}

export function featureDisabledMessage(feature: Feature): string {
  return `${FEATURE_AREAS[feature]} is disabled for this client`;
}

/**
 * Throws 403 when the client's area is switched off. Cheap (one indexed primary-key read); modules
 * whose use case already reads the client row may instead select `features` there and call
 * `assertFeatureOn` with the value.
 */
export async function assertFeatureEnabled(
  db: DbOrTx,
  environment: Environment,
  clientId: string,
  feature: Feature,
): Promise<void> {
  const res = await db.execute(sql`select features from clients where id = ${clientId}::uuid`);
  const row = rowsOf<{ features: Record<string, boolean> }>(res)[0];
  if (!row) throw notFound(M.notFound);
  assertFeatureOn(environment, row.features, feature);
}

export function assertFeatureOn(
  environment: Environment,
  overrides: Partial<Record<string, boolean>> | null | undefined,
  feature: Feature,
): void {
  if (!effectiveFeatures(environment, overrides)[feature]) throw forbidden(featureDisabledMessage(feature));
}
