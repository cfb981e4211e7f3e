/** The Token.io adapter over a running stand-in, as the contract tests use it. */
import { Registry } from 'prom-client';
import { type Config, loadConfig } from '../../../src/config';
import type { Payee } from '../../../src/providers/bank/port';
import { tokenioSettings } from '../../../src/providers/bank/tokenio/config';
import { createTokenio } from '../../../src/providers/bank/tokenio/index';
import type { SubTppApplication } from '../../../src/providers/subtpp/port';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../../helpers/app';
import { captureLogger, rememberSecret } from '../../helpers/log-capture';
import { freePort } from '../../helpers/process';
import { type RunningStandin, type StandinOptions, startTokenioStandin } from '../../standins/tokenio/server';

export const WEBHOOK_SECRET = 'whsec-path-0123456789abcdef';

/** The environment of a deployment whose payment network is the stand-in. */
export function tokenioEnv(
  standin: RunningStandin,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SVC_BANK_PROVIDER: 'tokenio',
    SVC_TOKENIO_API_URL: standin.url,
    SVC_TOKENIO_MEMBER_ID: standin.memberId,
    SVC_TOKENIO_API_KEY: standin.apiKey ?? '',
    SVC_TOKENIO_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SVC_TOKENIO_TIMEOUT_MS: '2000',
    SVC_TOKENIO_MAX_ATTEMPTS: '3',
    SVC_TOKENIO_BREAKER_FAILURES: '4',
    SVC_TOKENIO_BREAKER_COOLDOWN_SECONDS: '1',
    SVC_TOKENIO_REDIRECT_WAIT_MS: '1500',
    // The stand-in listens on loopback: a production deployment accepts it only with this test setting.
    SVC_TOKENIO_ALLOW_STANDIN: 'true',
    // Token.io's Terms, shown with the consent sentence on our pages (required in production).
    SVC_TOKENIO_TERMS_URL: 'https://terms.example/tokenio',
    ...extra,
  };
}

/**
 * The service in production mode with SVC_BANK_PROVIDER=tokenio against `standin`, listening on a
 * real port (the stand-in's bank pages send the payer back to it, its notifications post to it).
 */
export async function startTokenioApp(
  standin: RunningStandin,
  extra: Record<string, string>,
): Promise<TestContext> {
  const port = await freePort();
  const ctx = await createTestApp({
    env: {
      ...PRODUCTION_ENV,
      ...tokenioEnv(standin, { SVC_TOKENIO_REGISTER_WEBHOOK: 'true', ...extra }),
      SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
    },
  });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  return ctx;
}

export interface AdapterWorld {
  standin: RunningStandin;
  config: Config;
  metrics: Registry;
  adapters: ReturnType<typeof createTokenio>;
}

export async function startAdapterWorld(
  standinOpts: StandinOptions = {},
  env: Record<string, string> = {},
): Promise<AdapterWorld> {
  const standin = await startTokenioStandin(standinOpts);
  const config = loadConfig({ SVC_PUBLIC_URL: 'http://127.0.0.1:8000', ...tokenioEnv(standin, env) });
  if (standin.apiKey) rememberSecret(standin.apiKey, 'Token.io API key');
  const metrics = new Registry();
  const adapters = createTokenio(tokenioSettings(config)!, config.publicUrl, {
    metrics,
    log: captureLogger('trace'),
  });
  return { standin, config, metrics, adapters };
}

/** New adapters (their own breaker and caches) over the same stand-in: tests stay independent. */
export function freshAdapters(w: AdapterWorld): void {
  w.metrics = new Registry();
  w.adapters = createTokenio(tokenioSettings(w.config)!, w.config.publicUrl, {
    metrics: w.metrics,
    log: captureLogger('trace'),
  });
}

export const GB_PAYEE_IBAN = 'GB33BUKB20201555555555';

export function application(over: Partial<SubTppApplication> = {}): SubTppApplication {
  return {
    opcoId: '01a2013e-0000-7000-8000-000000000001',
    clientId: '01a2013e-0000-7000-8000-000000000002',
    name: `Opco ${Math.random().toString(36).slice(2, 8)}`,
    domain: 'opco.example.com',
    countryCode: 'GB',
    registrationNumber: '12345678',
    mcc: '5732',
    parentSubTppId: null,
    legalEntityName: 'Opco Trading Ltd',
    primaryUseCase: 'PIS: eCommerce merchant payment',
    settlementIban: GB_PAYEE_IBAN,
    settlementBic: 'BUKBGB22',
    registrationId: null,
    ...over,
  };
}

/** An activated sub-TPP at the stand-in, and the payee that carries its id. */
export async function activatedPayee(w: AdapterWorld, iban = GB_PAYEE_IBAN): Promise<Payee> {
  const { registrationId } = await w.adapters.subTpp.register(application({ settlementIban: iban }));
  w.standin.control.decideSubTpp(registrationId, 'ACTIVATED', 'This sub-TPP has been activated.');
  return { name: 'Opco Trading Ltd', iban, bic: null, subTppId: registrationId };
}

/** The value of a metric sample (0 when absent). */
export async function metricValue(
  metrics: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const m = (await metrics.getMetricsAsJSON()).find((x) => x.name === name);
  const sample = m?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return sample?.value ?? 0;
}
