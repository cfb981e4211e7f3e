/** Chooses each external party's adapter: the sandbox simulators on sandbox deployments, real adapters in production. */
import type { Config } from '../config';
import type { Providers } from '../deps';
import type { Secrets } from '../shared/crypto';

export function createProviders(_config: Config, _secrets: Secrets): Providers {
  return {};
}
