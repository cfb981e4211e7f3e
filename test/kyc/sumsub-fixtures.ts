/** A production deployment wired to the Sumsub stand-in: its webhooks reach the service over HTTP. */
import type { AddressInfo } from 'node:net';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { type SumsubStandin, startSumsubStandin } from '../standins/sumsub/server';

export const SUMSUB_LEVELS =
  'basic=basic-kyc-level,standard=standard-kyc-level,enhanced=enhanced-kyc-level,kyb-basic=basic-kyb-level,kyb-standard=standard-kyb-level';

/** A production app token for the stand-in (a sandbox `sbx:` token is refused in production). */
export const STANDIN_PRODUCTION_TOKEN = 'prd:standin-app-token';

export function sumsubEnv(standinUrl: string): Record<string, string> {
  return {
    SVC_VERIFICATION_PROVIDER: 'sumsub',
    SVC_SUMSUB_API_URL: standinUrl,
    SVC_SUMSUB_APP_TOKEN: STANDIN_PRODUCTION_TOKEN,
    SVC_SUMSUB_SECRET_KEY: 'standin-secret-key',
    SVC_SUMSUB_WEBHOOK_SECRET: 'standin-webhook-secret',
    SVC_SUMSUB_LEVELS: SUMSUB_LEVELS,
    SVC_SUMSUB_TIMEOUT_MS: '2000',
    SVC_SUMSUB_RECONCILE_AFTER_SECONDS: '60',
    SVC_SUMSUB_PRIVACY_URL: 'https://sumsub.example/privacy-notice',
  };
}

export async function startSumsubDeployment(
  env: Record<string, string> = {},
): Promise<{ ctx: TestContext; standin: SumsubStandin }> {
  const standin = await startSumsubStandin({ webhookUrl: null, appToken: STANDIN_PRODUCTION_TOKEN });
  const ctx = await createTestApp({ env: { ...PRODUCTION_ENV, ...sumsubEnv(standin.url), ...env } });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (ctx.app.server.address() as AddressInfo).port;
  standin.control.webhooks.settings.url = `http://127.0.0.1:${port}/api/v1/providers/verification/notifications`;
  return { ctx, standin };
}

/** The key people a stand-in company reports (its two beneficiaries), as our record shows them. */
export const STANDIN_KEY_PEOPLE = [
  { name: 'Alex Director', role: 'representative', positions: ['director'], nationality: 'GBR' },
  {
    name: 'Sam Owner',
    role: 'ubo',
    positions: ['shareholder'],
    nationality: 'GBR',
    ownership_percentage: 75,
  },
];
