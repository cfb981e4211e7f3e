/**
 * A test app in production mode with Documenso hosting the signing, against the Documenso stand-in
 * (test/standins/documenso), listening on a free port so the stand-in's webhooks and Chromium reach it.
 */
import type { AnyProviderDefinition } from '../../src/providers/definition';
import {
  type DocumensoStandin,
  STANDIN_API_KEY,
  STANDIN_WEBHOOK_SECRET,
  startDocumensoStandin,
} from '../standins/documenso/server';
import { createTestApp, PRODUCTION_ENV, type TestContext } from './app';
import { freePort } from './process';

export async function startDocumensoApp(
  opts: { env?: Record<string, string>; providerDefinitions?: readonly AnyProviderDefinition[] } = {},
): Promise<{ ctx: TestContext; standin: DocumensoStandin; hookUrl: string }> {
  const standin = await startDocumensoStandin({ webhookUrl: null });
  const port = await freePort();
  const ctx = await createTestApp({
    env: {
      ...PRODUCTION_ENV,
      SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
      SVC_ESIGN_PROVIDER: 'documenso',
      SVC_DOCUMENSO_API_URL: standin.url,
      SVC_DOCUMENSO_API_KEY: STANDIN_API_KEY,
      SVC_DOCUMENSO_WEBHOOK_SECRET: STANDIN_WEBHOOK_SECRET,
      SVC_DOCUMENSO_MAX_ATTEMPTS: '1',
      ...opts.env,
    },
    ...(opts.providerDefinitions ? { providerDefinitions: opts.providerDefinitions } : {}),
  });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const hookUrl = `http://127.0.0.1:${port}/api/v1/providers/esign/documenso/notifications`;
  standin.control.webhooks.url = hookUrl;
  return { ctx, standin, hookUrl };
}
