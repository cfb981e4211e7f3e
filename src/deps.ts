/**
 * The explicit dependencies every service function takes. No DI container: build one object at
 * start (or per test) and pass it down.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from './config';
import type { Database, Db } from './db/client';
import type { EventBus } from './platform/events';
import type { BankProvider } from './providers/bank/port';
import type { EsignProvider } from './providers/esign/port';
import type { Mailer } from './providers/mail/port';
import type { SanctionsLists } from './providers/sanctions/port';
import type { ScreeningProvider } from './providers/screening/port';
import type { SubTppNetwork } from './providers/subtpp/port';
import type { TravelRuleNetwork } from './providers/travel-rule/port';
import type { VerificationProvider } from './providers/verification/port';
import type { Clock } from './shared/clock';
import type { Secrets } from './shared/crypto';

/** External parties behind ports; each feature adds its adapter here (sandbox simulator or real). */
export interface Providers {
  /** The payment network's Sub-TPP registry (opco approval). */
  subTpp: SubTppNetwork;
  /** Payment network (sandbox bank simulator on sandbox deployments). */
  bank: BankProvider;
  /** Identity verification vendor, KYC and KYB (sandbox simulator on sandbox deployments). */
  verification: VerificationProvider;
  /** Wallet screening and chain observer (sandbox simulator, or unconfigured: 503). */
  screening: ScreeningProvider;
  /** Travel-rule network (sandbox simulator, or unconfigured: 503). */
  travelRule: TravelRuleNetwork;
  /** E-signing provider (sandbox simulator on sandbox deployments; unconfigured answers 503). */
  esign: EsignProvider;
  /** Sanctions name screening: the official lists (SVC_SANCTIONS_LISTS) and, on sandbox, the sandbox list. */
  sanctions: SanctionsLists;
}

export interface Deps {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  secrets: Secrets;
  mailer: Mailer;
  providers: Providers;
  log: FastifyBaseLogger;
  /** The Prometheus registry `/metrics` serves; vendor clients and workers add their metrics to it. */
  metrics: Registry;
  /** This app's event bus (src/platform/events.ts), built from the manifests' subscriptions. */
  events: EventBus;
}
