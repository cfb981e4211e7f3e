/** Travel-rule settings: threshold, originator VASP identity, counterparty wallet screening. */
import type { Deps } from '../../deps';
import { isKnownCurrency } from '../../platform/decimal';
import type { ClientAuth } from '../../plugins/auth';
import { invalidField, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import { findSettings, upsertSettings } from './travel-rule.repo';
import { toSettingsView } from './travel-rule.view';

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

/**
 * TRP's `GET …/identity` (docs/vendors/trp.md, "Identity endpoint"), relative to a client's own
 * inquiry URL (`pathSecret`) or at the origin's root with that URL's query (`?id=<token>`, as
 * TRISA's client asks): the client's VASP name and LEI from its travel-rule settings, and the
 * certificate we present to peers. A missing, unknown or forged token, a shared counterparty URL
 * (no client), a query that disagrees with the path, or a client without an LEI: 404.
 */
export async function trpIdentity(
  deps: Pick<Deps, 'db' | 'config' | 'providers'>,
  req: { pathSecret?: string; query?: Readonly<Record<string, string | string[] | undefined>> },
) {
  const id = deps.providers.travelRule.identityOf?.(req);
  const vasp = id
    ? toSettingsView(await findSettings(deps.db, id.clientId), deps.config).originator_vasp
    : null;
  if (!id || !vasp?.lei) throw notFound(M.notFound);
  return { name: vasp.name, lei: vasp.lei, x509: id.x509 };
}

export async function getSettings(deps: D, clientId: string) {
  return toSettingsView(await findSettings(deps.db, clientId), deps.config);
}

export interface SettingsInput {
  threshold?: { amount: string; currency: string };
  originator_vasp?: { name: string; lei?: string | null; country: string } | null;
  screen_counterparty_wallet?: boolean;
}

/** PUT: fields left out keep their value (the defaults on the first PUT). */
export async function putSettings(deps: D, auth: ClientAuth, input: SettingsInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'travel_rule');
  if (input.threshold && !isKnownCurrency(input.threshold.currency))
    throw invalidField(['body', 'threshold', 'currency'], 'Unknown currency');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const before = toSettingsView(await findSettings(tx, auth.clientId), deps.config);
    const threshold = input.threshold ?? before.threshold;
    const vasp = input.originator_vasp === undefined ? before.originator_vasp : input.originator_vasp;
    const screen = input.screen_counterparty_wallet ?? before.screen_counterparty_wallet;
    const row = await upsertSettings(tx, {
      clientId: auth.clientId,
      thresholdAmount: threshold.amount,
      thresholdCurrency: threshold.currency,
      originatorVasp: vasp ? { name: vasp.name, lei: vasp.lei ?? null, country: vasp.country } : null,
      screenCounterpartyWallet: screen,
      createdAt: now,
      updatedAt: now,
    });
    const after = toSettingsView(row, deps.config);
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const k of ['threshold', 'originator_vasp', 'screen_counterparty_wallet'] as const)
      if (JSON.stringify(before[k]) !== JSON.stringify(after[k]))
        changes[k] = { from: before[k], to: after[k] };
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'travel_rule_settings.updated',
      at: now,
      target: { type: 'travel_rule_settings', id: auth.clientId, label: 'Travel-rule settings' },
      changes,
    });
  });
  return getSettings(deps, auth.clientId);
}
