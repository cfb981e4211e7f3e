/** Webhooks: endpoints, deliveries and `svc listen` (delivery itself is the outbox's worker). */
import { defineModule } from '../../platform/module';
import { webhookListenRoutes } from './listen.routes';
import { webhooksRoutes } from './webhooks.routes';

export const webhooksModule = defineModule({ name: 'webhooks', api: [webhooksRoutes, webhookListenRoutes] });
