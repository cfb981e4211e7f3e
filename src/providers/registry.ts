/**
 * Every provider the service can run, as the one list of their definitions (the way
 * src/modules/index.ts lists the module manifests). Adding a vendor is its folder
 * (`src/providers/<kind>/<vendor>/`, whose index.ts exports the definition) and one entry here
 * (docs/architecture.md, "Adding a provider"). Within a kind, the list's order is the order the
 * configuration error names them in; `none` (no adapter) is always accepted after them.
 */

import type { ConfigReader } from '../shared/config-reader';
import { tokenioProvider } from './bank/tokenio/index';
import {
  type AnyProviderDefinition,
  PROVIDER_SETTING,
  type ProviderKind,
  type ProviderSelection,
} from './definition';
import { documensoProvider } from './esign/documenso/index';
import { chainalysisProvider, chainalysisSanctionsProvider } from './screening/chainalysis/index';
import {
  sandboxBankProvider,
  sandboxEsignProvider,
  sandboxScreeningProvider,
  sandboxTravelRuleProvider,
  sandboxVerificationProvider,
} from './simulators';
import { trpProvider } from './travel-rule/trp/index';
import { sumsubProvider } from './verification/sumsub/index';

export const providerDefinitions: readonly AnyProviderDefinition[] = [
  sandboxBankProvider,
  tokenioProvider,
  sandboxVerificationProvider,
  sumsubProvider,
  sandboxScreeningProvider,
  chainalysisProvider,
  chainalysisSanctionsProvider,
  sandboxTravelRuleProvider,
  trpProvider,
  sandboxEsignProvider,
  documensoProvider,
];

/** How the refusal of a sandbox-only provider in production names the alternatives, per kind. */
const PRODUCTION_CHOICES: Record<ProviderKind, (names: string) => string> = {
  bank: (names) => `production: ${names}`,
  verification: (names) => `use ${names}`,
  screening: (names) => `production: ${names}`,
  'travel-rule': (names) => `production: ${names}`,
  esign: (names) => `production: ${names}`,
};

/**
 * Reads each kind's setting (PROVIDER_SETTING): the name of one of `definitions` of that kind, or
 * `none`; the chosen provider's own settings are read by its definition on the same reader.
 * Default: the kind's simulator on sandbox deployments, `none` in production.
 */
export function readProviderSelection(
  r: ConfigReader,
  environment: 'sandbox' | 'production',
  definitions: readonly AnyProviderDefinition[] = providerDefinitions,
): ProviderSelection {
  const pick = (kind: ProviderKind) => {
    const ofKind = definitions.filter((d) => d.kind === kind);
    const names = [...ofKind.map((d) => d.name), 'none'];
    const fallback =
      environment === 'sandbox' && ofKind.some((d) => d.name === 'simulator') ? 'simulator' : 'none';
    const name = r.oneOf(PROVIDER_SETTING[kind], names, fallback);
    const definition = ofKind.find((d) => d.name === name);
    if (definition?.sandboxOnly && environment === 'production') {
      const others = names.filter((n) => n !== name && !ofKind.find((d) => d.name === n)?.sandboxOnly);
      r.problems.push(
        `${PROVIDER_SETTING[kind]}=${name} is for sandbox deployments (${PRODUCTION_CHOICES[kind](others.join(' or '))})`,
      );
    }
    return { name, settings: definition?.readConfig?.(r, environment) };
  };
  return {
    bank: pick('bank'),
    verification: pick('verification'),
    screening: pick('screening'),
    'travel-rule': pick('travel-rule'),
    esign: pick('esign'),
  };
}
