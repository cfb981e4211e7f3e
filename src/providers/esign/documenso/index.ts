/**
 * The Documenso provider: its definition (SVC_ESIGN_PROVIDER=documenso, listed in
 * src/providers/registry.ts), and the factory building the adapter over one resilient client.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { defineProvider, type ProviderContext } from '../../definition';
import { DocumensoEsign } from './adapter';
import { DocumensoClient } from './client';
import { type DocumensoConfig, readDocumensoConfig } from './config';

export function createDocumenso(
  config: DocumensoConfig,
  runtime: { metrics: Registry; log: FastifyBaseLogger },
): DocumensoEsign {
  return new DocumensoEsign(new DocumensoClient(config, runtime), config, runtime.log);
}

export const documensoProvider = defineProvider({
  kind: 'esign',
  name: 'documenso',
  readConfig: readDocumensoConfig,
  create: (ctx: ProviderContext<DocumensoConfig>) => createDocumenso(ctx.settings, ctx),
});
