/** Chooses each external party's adapter: the sandbox simulators on sandbox deployments, real adapters in production. */
import type { Config } from '../config';
import type { Providers } from '../deps';
import type { Secrets } from '../shared/crypto';
import { SubTppSimulator } from './subtpp/simulator';

export function createProviders(_config: Config, secrets: Secrets): Providers {
  return {
    // No production Sub-TPP network adapter exists yet: production opcos are activated by staff
    // (admin approve), which asks this registry for the identifier.
    subTpp: new SubTppSimulator(secrets.hashKey),
  };
}
