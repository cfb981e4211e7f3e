/**
 * The TRP provider: its definition (SVC_TRAVEL_RULE_PROVIDER=trp, listed in src/providers/registry.ts)
 * and the factory building the adapter over one client (one upstream per counterparty origin).
 */
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { defineProvider, type ProviderContext } from '../../definition';
import { TrpNetwork } from './adapter';
import { TrpClient, type TrpRuntime } from './client';
import { readTrpConfig, type TrpConfig } from './config';

/**
 * With a client certificate configured, every call to a counterparty goes through one undici Agent
 * that presents it (TRP's mTLS) and also trusts SVC_TRP_TLS_CA_FILE besides the system roots.
 */
export function createTrp(config: TrpConfig, runtime: TrpRuntime): TrpNetwork {
  const dispatcher =
    runtime.dispatcher ??
    (config.tls
      ? new Agent({
          keepAliveTimeout: 10_000,
          connections: 64,
          connect: {
            timeout: config.timeoutMs,
            cert: config.tls.cert,
            key: config.tls.key,
            ...(config.tls.ca ? { ca: [...rootCertificates, config.tls.ca] } : {}),
          },
        })
      : undefined);
  return new TrpNetwork(
    config,
    new TrpClient(config, { ...runtime, ...(dispatcher ? { dispatcher } : {}) }),
    runtime.log,
  );
}

export const trpProvider = defineProvider({
  kind: 'travel-rule',
  name: 'trp',
  readConfig: readTrpConfig,
  create: (ctx: ProviderContext<TrpConfig>) => createTrp(ctx.settings, ctx),
});
