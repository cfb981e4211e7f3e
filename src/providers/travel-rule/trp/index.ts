/**
 * The TRP provider: its definition (SVC_TRAVEL_RULE_PROVIDER=trp, listed in src/providers/registry.ts)
 * and the factory building the adapter over one client (one upstream per counterparty origin).
 */
import { defineProvider, type ProviderContext } from '../../definition';
import { TrpNetwork } from './adapter';
import { TrpClient, type TrpRuntime } from './client';
import { readTrpConfig, type TrpConfig } from './config';

export function createTrp(config: TrpConfig, runtime: TrpRuntime): TrpNetwork {
  return new TrpNetwork(config, new TrpClient(config, runtime));
}

export const trpProvider = defineProvider({
  kind: 'travel-rule',
  name: 'trp',
  readConfig: readTrpConfig,
  create: (ctx: ProviderContext<TrpConfig>) => createTrp(ctx.settings, ctx),
});
