/**
 * Client settings: callback_url (where the payer returns after checkout), webhook_url and the
 * webhook switch. PUT is a partial update: absent fields keep their value, null clears a URL.
 * The webhook cannot be enabled without a URL, nor its URL cleared while it is enabled.
 */

import type { Deps } from '../../../deps';
import { badRequest, notFound } from '../../../shared/errors';
import { M } from '../../../shared/messages';
import { checkClientUrl } from '../../../shared/urls';
import { diffChanges, recordActivity } from '../../activity/activity-writer.service';
import { validateTargetUrl } from '../../webhooks/webhooks.service';
import { findSettings, type SettingsRow, saveSettings } from './settings.repo';

export interface SettingsView {
  callback_url: string | null;
  webhook_url: string | null;
  webhook_enabled: boolean;
}

export interface SettingsInput {
  callback_url?: string | null;
  webhook_url?: string | null;
  webhook_enabled?: boolean;
}

const toView = (row: SettingsRow): SettingsView => ({
  callback_url: row.callbackUrl,
  webhook_url: row.webhookUrl,
  webhook_enabled: row.webhookEnabled,
});

export async function getClientSettings(deps: Deps, clientId: string): Promise<SettingsView> {
  const row = await findSettings(deps.db, clientId);
  if (!row) throw notFound(M.notFound);
  return toView(row);
}

export async function updateClientSettings(
  deps: Deps,
  clientId: string,
  input: SettingsInput,
): Promise<SettingsView> {
  // "" clears a URL, like null. Production takes https only, for the payer's way back as for webhooks.
  const httpsOnly = deps.config.environment === 'production';
  const callbackUrl =
    typeof input.callback_url === 'string' && input.callback_url !== ''
      ? checkClientUrl(['body', 'callback_url'], input.callback_url, httpsOnly)
      : input.callback_url === undefined
        ? undefined
        : null;
  const webhookUrl =
    typeof input.webhook_url === 'string' && input.webhook_url !== ''
      ? checkClientUrl(['body', 'webhook_url'], input.webhook_url, httpsOnly)
      : input.webhook_url === undefined
        ? undefined
        : null;
  // The same target rules as the webhook subscription (non-public hosts refused in production).
  if (webhookUrl) await validateTargetUrl(deps, webhookUrl, ['body', 'webhook_url']);
  const row = await deps.db.transaction(async (tx) => {
    const current = await findSettings(tx, clientId, true);
    if (!current) throw notFound(M.notFound);
    const next: SettingsRow = {
      callbackUrl: callbackUrl === undefined ? current.callbackUrl : callbackUrl,
      webhookUrl: webhookUrl === undefined ? current.webhookUrl : webhookUrl,
      webhookEnabled: input.webhook_enabled ?? current.webhookEnabled,
    };
    if (next.webhookEnabled && !next.webhookUrl) throw badRequest(M.webhookUrlRequired);
    const saved = await saveSettings(tx, clientId, { ...next, updatedAt: deps.clock.now() });
    await recordActivity(tx, {
      clientId,
      action: 'settings.updated',
      at: deps.clock.now(),
      target: { type: 'client_settings', id: clientId, label: null },
      changes: diffChanges(
        {
          callback_url: current.callbackUrl,
          webhook_url: current.webhookUrl,
          webhook_enabled: current.webhookEnabled,
        },
        {
          callback_url: next.callbackUrl,
          webhook_url: next.webhookUrl,
          webhook_enabled: next.webhookEnabled,
        },
      ),
    });
    return saved;
  });
  return toView(row);
}
