import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps';
import { clientAuthOf } from '../../../plugins/auth';
import { firstWebhookSecret, WEBHOOK_SECRET_ONCE } from '../../webhooks/webhooks.service';
import { SettingsBody, SettingsSchema } from './settings.schemas';
import { getClientSettings, updateClientSettings } from './settings.service';

export async function settingsRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/auth/client/settings',
    {
      config: { permission: 'settings.read' },
      schema: {
        tags: ['auth'],
        summary: 'Read the client settings',
        response: { 200: SettingsSchema },
      },
    },
    async (request) => getClientSettings(deps, clientAuthOf(request).clientId),
  );

  r.put(
    '/auth/client/settings',
    {
      config: { permission: 'settings.write' },
      schema: {
        tags: ['auth'],
        summary: 'Change the client settings',
        description:
          'Partial update: absent fields keep their value, null clears a URL. URLs must be absolute http(s) ' +
          '(422 with loc otherwise). Enabling the webhook without a webhook_url, or clearing the URL while ' +
          'it is enabled, is 400 `Webhook_url is required when webhook is enabled`. The canonical route for ' +
          'the webhook is `PUT /webhooks/subscription` (URL, switch and event types); this one sets the same ' +
          'URL and switch for compatibility. ' +
          WEBHOOK_SECRET_ONCE,
        body: SettingsBody,
        response: { 200: SettingsSchema },
      },
    },
    async (request) => {
      const clientId = clientAuthOf(request).clientId;
      const settings = await updateClientSettings(deps, clientId, request.body);
      return { ...settings, ...(await firstWebhookSecret(deps, clientId, settings.webhook_url)) };
    },
  );
}
