/** Chooses each external party's adapter: the sandbox simulators on sandbox deployments, real adapters in production. */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from '../config';
import type { Providers } from '../deps';
import type { Secrets } from '../shared/crypto';
import { SandboxBank } from './bank/simulator';
import { createTokenio } from './bank/tokenio/index';
import { UnconfiguredBank } from './bank/unconfigured';
import { SandboxEsign } from './esign/simulator';
import { UnconfiguredEsign } from './esign/unconfigured';
import { sanctionsProvider } from './sanctions/index';
import { SandboxScreeningProvider } from './screening/simulator';
import { UnconfiguredScreeningProvider } from './screening/unconfigured';
import { SubTppSimulator } from './subtpp/simulator';
import { SandboxTravelRuleNetwork } from './travel-rule/simulator';
import { UnconfiguredTravelRuleNetwork } from './travel-rule/unconfigured';
import { SandboxVerificationProvider } from './verification/simulator';
import { SumsubVerificationProvider } from './verification/sumsub/adapter';
import { SumsubClient } from './verification/sumsub/client';
import { UnconfiguredVerificationProvider } from './verification/unconfigured';

/** What real adapters need from the running service: where their metrics go, and the log. */
export interface ProviderRuntime {
  metrics: Registry;
  log: FastifyBaseLogger;
}

/** The payment network and its Sub-TPP registry (SVC_BANK_PROVIDER). */
function bankProviders(
  config: Config,
  secrets: Secrets,
  runtime: ProviderRuntime,
): Pick<Providers, 'bank' | 'subTpp'> {
  if (config.bankProvider === 'tokenio' && config.tokenio)
    return createTokenio(config.tokenio, config.publicUrl, runtime);
  return {
    bank:
      config.bankProvider === 'simulator'
        ? new SandboxBank({
            secret: secrets.providerWebhookSecret,
            publicUrl: config.publicUrl,
            sessionTtlSeconds: config.bankSessionTtlSeconds,
            settleSeconds: config.sandboxBankSettleSeconds,
            refundSettleSeconds: config.sandboxRefundSettleSeconds,
          })
        : new UnconfiguredBank(),
    // Without a real network, opcos are activated by staff (admin approve) from this simulated registry.
    subTpp: new SubTppSimulator(secrets.hashKey),
  };
}

export function createProviders(config: Config, secrets: Secrets, runtime: ProviderRuntime): Providers {
  return {
    ...bankProviders(config, secrets, runtime),
    verification: createVerificationProvider(config, secrets, runtime),
    screening:
      config.screeningProvider === 'simulator'
        ? new SandboxScreeningProvider({
            secret: secrets.providerWebhookSecret,
            delaySeconds: config.sandboxScreeningDelaySeconds,
          })
        : new UnconfiguredScreeningProvider(),
    travelRule:
      config.travelRuleProvider === 'simulator'
        ? new SandboxTravelRuleNetwork({
            secret: secrets.providerWebhookSecret,
            delaySeconds: config.sandboxTravelRuleDelaySeconds,
          })
        : new UnconfiguredTravelRuleNetwork(),
    esign:
      config.esignProvider === 'simulator'
        ? new SandboxEsign({
            secret: secrets.providerWebhookSecret,
            autoSeconds: config.sandboxEsignAutoSeconds,
          })
        : new UnconfiguredEsign(),
    sanctions: sanctionsProvider.create(config.sanctions, runtime),
  };
}

function createVerificationProvider(config: Config, secrets: Secrets, runtime: ProviderRuntime) {
  if (config.verificationProvider === 'sumsub' && config.sumsub)
    return new SumsubVerificationProvider(
      new SumsubClient(config.sumsub, runtime),
      config.sumsub,
      undefined,
      runtime.log,
    );
  if (config.verificationProvider === 'simulator')
    return new SandboxVerificationProvider({
      secret: secrets.providerWebhookSecret,
      encryptionKey: secrets.encryptionKey,
    });
  return new UnconfiguredVerificationProvider();
}
