/**
 * The sandbox simulators as provider definitions (name `simulator` of each kind, the sandbox
 * default). They read the service's own SVC_SANDBOX_* settings (`host`), not settings of their own.
 */
import { SandboxBank } from './bank/simulator';
import { defineProvider } from './definition';
import { SandboxEsign } from './esign/simulator';
import { SandboxScreeningProvider } from './screening/simulator';
import { SubTppSimulator } from './subtpp/simulator';
import { SandboxTravelRuleNetwork } from './travel-rule/simulator';
import { SandboxVerificationProvider } from './verification/simulator';

export const sandboxBankProvider = defineProvider({
  kind: 'bank',
  name: 'simulator',
  sandboxOnly: true,
  create: ({ host, secrets }) => ({
    bank: new SandboxBank({
      secret: secrets.providerWebhookSecret,
      publicUrl: host.publicUrl,
      sessionTtlSeconds: host.bankSessionTtlSeconds,
      settleSeconds: host.sandboxBankSettleSeconds,
      refundSettleSeconds: host.sandboxRefundSettleSeconds,
    }),
    // Without a real network, opcos are activated by staff (admin approve) from this simulated registry.
    subTpp: new SubTppSimulator(secrets.hashKey),
  }),
});

export const sandboxVerificationProvider = defineProvider({
  kind: 'verification',
  name: 'simulator',
  sandboxOnly: true,
  create: ({ secrets }) =>
    new SandboxVerificationProvider({
      secret: secrets.providerWebhookSecret,
      encryptionKey: secrets.encryptionKey,
    }),
});

export const sandboxScreeningProvider = defineProvider({
  kind: 'screening',
  name: 'simulator',
  create: ({ host, secrets }) =>
    new SandboxScreeningProvider({
      secret: secrets.providerWebhookSecret,
      delaySeconds: host.sandboxScreeningDelaySeconds,
    }),
});

export const sandboxTravelRuleProvider = defineProvider({
  kind: 'travel-rule',
  name: 'simulator',
  create: ({ host, secrets }) =>
    new SandboxTravelRuleNetwork({
      secret: secrets.providerWebhookSecret,
      delaySeconds: host.sandboxTravelRuleDelaySeconds,
    }),
});

export const sandboxEsignProvider = defineProvider({
  kind: 'esign',
  name: 'simulator',
  // It signs nothing for real: production chooses documenso (or none) instead.
  sandboxOnly: true,
  create: ({ host, secrets }) =>
    new SandboxEsign({ secret: secrets.providerWebhookSecret, autoSeconds: host.sandboxEsignAutoSeconds }),
});
