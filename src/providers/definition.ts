/**
 * What a provider (one vendor's adapter of one port) tells the service about itself: its kind and
 * name, how its settings are read (on the shared config reader, so a bad value stops the server at
 * start with every other problem), and how it is built. Each vendor folder's index.ts exports one
 * definition; src/providers/registry.ts lists them once, the way src/modules/index.ts lists the
 * module manifests (docs/architecture.md, "Adding a provider").
 *
 * What features used to learn from concrete classes is a capability of the port instead: an inbound
 * part (a raw notification and its headers become a verified notification, or a hint to re-read),
 * a reconcile part (its due policy; the read is the port's own read) and, on sandbox simulators,
 * the sandbox hooks. A feature checks for the capability (`provider.sandbox?.…`), never for a class.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { ConfigReader } from '../shared/config-reader';
import type { Secrets } from '../shared/crypto';
import type { BankProvider } from './bank/port';
import type { EsignProvider } from './esign/port';
import type { ScreeningProvider } from './screening/port';
import type { SubTppNetwork } from './subtpp/port';
import type { TravelRuleNetwork } from './travel-rule/port';
import type { VerificationProvider } from './verification/port';

/** What a definition of each kind builds. The bank kind brings its network's Sub-TPP registry with it. */
export interface ProviderPorts {
  bank: { bank: BankProvider; subTpp: SubTppNetwork };
  verification: VerificationProvider;
  screening: ScreeningProvider;
  'travel-rule': TravelRuleNetwork;
  esign: EsignProvider;
}

export type ProviderKind = keyof ProviderPorts;

export const PROVIDER_KINDS: readonly ProviderKind[] = [
  'bank',
  'verification',
  'screening',
  'travel-rule',
  'esign',
];

/** The environment variable choosing each kind's provider by name (`none`: no adapter, the feature answers 503). */
export const PROVIDER_SETTING: Readonly<Record<ProviderKind, string>> = {
  bank: 'SVC_BANK_PROVIDER',
  verification: 'SVC_VERIFICATION_PROVIDER',
  screening: 'SVC_SCREENING_PROVIDER',
  'travel-rule': 'SVC_TRAVEL_RULE_PROVIDER',
  esign: 'SVC_ESIGN_PROVIDER',
};

/**
 * The service settings a provider may use besides its own (a structural part of src/config.ts's
 * Config: definitions do not import the config module, which lists them).
 */
export interface ProviderHostSettings {
  environment: 'sandbox' | 'production';
  publicUrl: string;
  bankSessionTtlSeconds: number;
  sandboxBankSettleSeconds: number;
  sandboxRefundSettleSeconds: number;
  sandboxScreeningDelaySeconds: number;
  sandboxTravelRuleDelaySeconds: number;
  sandboxEsignAutoSeconds: number;
}

/** What `create` gets: the provider's own settings (from `readConfig`), the service's, secrets and runtime. */
export interface ProviderContext<S> {
  settings: S;
  host: ProviderHostSettings;
  secrets: Secrets;
  metrics: Registry;
  log: FastifyBaseLogger;
}

export interface ProviderDefinition<K extends ProviderKind = ProviderKind, S = unknown> {
  kind: K;
  /** The value of the kind's setting (PROVIDER_SETTING) that selects it, and the `{name}` of its notification URL. */
  name: string;
  /** Only on sandbox deployments (a simulator): production refuses to start with it. */
  sandboxOnly?: boolean;
  /** Reads and checks the provider's settings on the shared reader (problems go to `r.problems`). */
  readConfig?(r: ConfigReader, environment: 'sandbox' | 'production'): S;
  create(ctx: ProviderContext<S>): ProviderPorts[K];
}

/** Keeps a definition's settings type while listing it beside others (the registry's element type). */
export function defineProvider<K extends ProviderKind, S = undefined>(
  d: ProviderDefinition<K, S>,
): ProviderDefinition<K, S> {
  return d;
}

/** A definition of any kind and settings, as the registry list holds them. */
export type AnyProviderDefinition = {
  // The settings type is the definition's own: the list holds definitions of every settings type.
  [K in ProviderKind]: ProviderDefinition<K, any>;
}[ProviderKind];

/** The provider chosen for each kind, with its settings as its definition read them. */
export type ProviderSelection = Record<ProviderKind, { name: string; settings: unknown }>;
