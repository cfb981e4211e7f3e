/**
 * Wallet screening (docs/guides/screening.md): validate the address for its chain, reuse a fresh
 * completed screening (`max_age_seconds`), otherwise record a pending screening, ask the provider
 * within SVC_SCREENING_SYNC_TIMEOUT_MS and apply its answer; a late answer arrives by notification.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { cancelTimer, defineTimer, runDueTimers, setTimer, timerRef } from '../../platform/jobs/index';
import type { ClientAuth } from '../../plugins/auth';
import type {
  RiskCategory,
  RiskLevel,
  ScreeningProvider,
  ScreenOutcome,
} from '../../providers/screening/port';
import { sandboxRisk } from '../../providers/screening/simulator';
import { type Chain, isValidAddress, normalizeAddress } from '../../shared/chain-addresses';
import { AppError, badRequest, invalidField, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { counterPage, normalizeSearchQuery, type PageParams } from '../../shared/pagination';
import { assertOwnedReferences } from '../../shared/references';
import { recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import { applyScreeningOutcome, SCREENING_RETRY } from './results.service';
import { ScreeningMessages } from './screening.messages';
import {
  findScreening,
  findWallet,
  findWalletByAddress,
  freshCompletedScreening,
  insertScreening,
  latestScreenings,
  listWallets,
  type ScreeningRow,
  updateWallet,
  upsertWallet,
  type WalletFilters,
  type WalletRow,
} from './screening.repo';
import { toScreeningView, toWalletView } from './screening.view';

export type Trigger = 'api' | 'rescreen' | 'monitoring' | 'travel_rule';

export function assertScreeningConfigured(deps: Pick<Deps, 'providers'>) {
  if (!deps.providers.screening.configured) throw new AppError(503, ScreeningMessages.providerNotConfigured);
}

/** 422 at ["body","address"] unless the address is valid for the chain. */
export function checkAddress(chain: Chain, address: string, loc: (string | number)[] = ['body', 'address']) {
  if (!isValidAddress(chain, address)) throw invalidField(loc, ScreeningMessages.invalidAddress(chain));
}

/** 404 unless the customer named exists for this client; 422 when both are given. */
export async function checkCustomer(
  db: DbOrTx,
  clientId: string,
  userId?: string | null,
  businessId?: string | null,
) {
  if (userId && businessId) throw invalidField(['body', 'business_customer_id'], ScreeningMessages.notBoth);
  await assertOwnedReferences(db, clientId, [
    ['user', userId],
    ['business_customer', businessId],
  ]);
}

export interface ScreenInput {
  chain: Chain;
  address: string;
  asset?: string;
  user_id?: string;
  business_customer_id?: string;
  client_reference?: string;
  label?: string;
  monitor?: boolean;
  max_age_seconds?: number;
}

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

/** The first retry of a polled screening: after the request's own wait, with a margin. */
const FIRST_RETRY_MARGIN_MS = 30_000;

/**
 * A monitored wallet's next re-screen (docs/platform.md, "Timers"): one timer per wallet, due at
 * `next_rescreen_at`, set in every transaction that sets that time (a screening of a monitored
 * wallet, monitoring turned on) and removed when monitoring stops; its handler re-arms it through
 * the screening it creates.
 */
export const WALLET_RESCREEN = timerRef<{ walletId: string; clientId: string }>({
  kind: 'screening.wallet_rescreen',
  keyOf: (p) => `wallet:${p.walletId}`,
});

/** Keeps the wallet's re-screen timer in step with its row, in the transaction that wrote it. */
async function syncRescreenTimer(
  tx: DbOrTx,
  clock: Pick<Deps['clock'], 'now'>,
  w: Pick<WalletRow, 'id' | 'clientId' | 'monitored' | 'nextRescreenAt'>,
): Promise<void> {
  const payload = { walletId: w.id, clientId: w.clientId };
  if (w.monitored && w.nextRescreenAt)
    await setTimer(tx, clock, WALLET_RESCREEN, { payload, runAt: w.nextRescreenAt, clientId: w.clientId });
  else await cancelTimer(tx, WALLET_RESCREEN, payload);
}

/** Records the pending screening (and the wallet) in the caller's transaction. */
export async function createPendingScreening(
  tx: DbOrTx,
  deps: Pick<Deps, 'config'> & Partial<Pick<Deps, 'providers'>>,
  now: Date,
  clientId: string,
  input: ScreenInput,
  trigger: Trigger,
): Promise<{ wallet: WalletRow; screening: ScreeningRow }> {
  const normalized = normalizeAddress(input.chain, input.address);
  let wallet = await upsertWallet(tx, {
    clientId,
    chain: input.chain,
    address: input.address,
    normalizedAddress: normalized,
    label: input.label ?? null,
    userId: input.user_id ?? null,
    businessCustomerId: input.business_customer_id ?? null,
    monitored: input.monitor === true,
    riskLevel: 'unknown',
    createdAt: now,
    updatedAt: now,
  });
  const set: Partial<WalletRow> = {};
  if (input.label !== undefined && input.label !== wallet.label) set.label = input.label;
  if (input.user_id && !wallet.userId && !wallet.businessCustomerId) set.userId = input.user_id;
  if (input.business_customer_id && !wallet.userId && !wallet.businessCustomerId)
    set.businessCustomerId = input.business_customer_id;
  if (input.monitor === true && !wallet.monitored) set.monitored = true;
  const monitored = set.monitored ?? wallet.monitored;
  if (monitored) set.nextRescreenAt = new Date(now.getTime() + deps.config.screeningRescreenHours * 3600_000);
  if (Object.keys(set).length > 0) wallet = await updateWallet(tx, wallet.id, { ...set, updatedAt: now });
  if (set.nextRescreenAt) await syncRescreenTimer(tx, { now: () => now }, wallet);
  const screening = await insertScreening(tx, {
    clientId,
    walletId: wallet.id,
    chain: wallet.chain,
    address: wallet.address,
    asset: input.asset ?? null,
    status: 'pending',
    clientReference: input.client_reference ?? null,
    userId: input.user_id ?? wallet.userId,
    businessCustomerId: input.business_customer_id ?? wallet.businessCustomerId,
    trigger,
    createdAt: now,
  });
  if (deps.providers?.screening.polled)
    await setTimer(tx, { now: () => now }, SCREENING_RETRY, {
      payload: { screeningId: screening.id, failures: 0 },
      runAt: new Date(now.getTime() + deps.config.screeningSyncTimeoutMs + FIRST_RETRY_MARGIN_MS),
      clientId,
    });
  await recordActivity(tx, {
    clientId,
    action: 'wallet_screening.created',
    at: now,
    target: { type: 'wallet_screening', id: screening.id, label: `${wallet.chain} ${wallet.address}` },
    metadata: { wallet_id: wallet.id, trigger, client_reference: screening.clientReference },
  });
  return { wallet, screening };
}

/** Asks the provider (outside any transaction) and applies a synchronous answer; pending stays pending. */
export async function runProvider(deps: D, screening: ScreeningRow): Promise<ScreeningRow> {
  let timer: NodeJS.Timeout | undefined;
  let outcome: ScreenOutcome;
  const provider = deps.providers.screening;
  try {
    const call = provider.screenWallet(screenRequestOf(screening));
    const timeout = new Promise<ScreenOutcome>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'pending' }), deps.config.screeningSyncTimeoutMs);
    });
    outcome = await Promise.race([call, timeout]);
    // A call that loses the race keeps running; its failure must not become an unhandled rejection.
    // A polled provider's late answer is still applied (its retry timer is the safety net).
    call
      .then((late) => {
        if (provider.polled && late !== outcome) return settleOutcome(deps, screening, late, 0);
      })
      .catch((err) => deps.log.warn({ err, screeningId: screening.id }, 'late screening provider error'));
  } catch (err) {
    deps.log.error({ err, screeningId: screening.id }, 'screening provider call failed');
    outcome = { status: 'failed', reason: ScreeningMessages.providerError };
  } finally {
    if (timer) clearTimeout(timer);
  }
  return settleOutcome(deps, screening, outcome, 0);
}

const screenRequestOf = (s: ScreeningRow) => ({
  screeningId: s.id,
  walletId: s.walletId,
  chain: s.chain,
  address: s.address,
  asset: s.asset,
});

/** Seconds to wait before asking a polled provider again after `failures` unavailable answers. */
function retryDelayMs(
  polled: NonNullable<ScreeningProvider['polled']>,
  failures: number,
  afterMs?: number,
): number {
  const backoff = polled.backoffSeconds;
  const fallback = backoff[Math.min(Math.max(failures, 1), backoff.length) - 1] ?? 60;
  const wanted = afterMs ?? fallback * 1000;
  return Math.min(Math.max(wanted, 1000), polled.maxRetryAfterSeconds * 1000);
}

/**
 * Applies a final outcome; for a polled provider's "not yet" (429, unfinished answer or outage) moves
 * the retry timer, or fails the screening once the unavailable answers reach the provider's limit or
 * the screening has been pending for the provider's `maxPendingSeconds` (the retry is never set
 * later than that deadline).
 */
async function settleOutcome(
  deps: D,
  screening: ScreeningRow,
  outcome: ScreenOutcome,
  failuresSoFar: number,
): Promise<ScreeningRow> {
  const polled = deps.providers.screening.polled;
  if (outcome.status === 'pending') {
    if (!polled || !outcome.retry) return screening;
    const failures = failuresSoFar + (outcome.retry.reason === 'unavailable' ? 1 : 0);
    const now = deps.clock.now();
    const deadline =
      polled.maxPendingSeconds === undefined
        ? null
        : screening.createdAt.getTime() + polled.maxPendingSeconds * 1000;
    if (failures >= polled.maxUnavailableAttempts || (deadline !== null && now.getTime() >= deadline)) {
      const r = await applyScreeningOutcome(
        deps,
        screening.id,
        { status: 'failed', reason: ScreeningMessages.providerError },
        1,
      );
      return r.screening ?? screening;
    }
    const next = now.getTime() + retryDelayMs(polled, failures, outcome.retry.afterMs);
    await setTimer(deps.db, deps.clock, SCREENING_RETRY, {
      payload: { screeningId: screening.id, failures },
      runAt: new Date(deadline === null ? next : Math.min(next, Math.max(deadline, now.getTime() + 1000))),
      clientId: screening.clientId,
    });
    deps.log.info(
      { screeningId: screening.id, reason: outcome.retry.reason, failures },
      'screening provider asked again later',
    );
    return screening;
  }
  const r = await applyScreeningOutcome(deps, screening.id, outcome, 1);
  return r.screening ?? screening;
}

/** The retry timer's handler: a screening still pending at a polled provider is asked again. */
export const screeningRetryTimer = defineTimer<{ screeningId: string; failures: number }>({
  ...SCREENING_RETRY,
  label: 'Wallet screening provider retry',
  async fire(deps, { screeningId, failures }) {
    const provider = deps.providers.screening;
    if (!provider.polled) return false;
    const s = await findScreening(deps.db, null, screeningId);
    if (s?.status !== 'pending') return false;
    let outcome: ScreenOutcome;
    try {
      outcome = await provider.screenWallet(screenRequestOf(s));
    } catch (err) {
      deps.log.error({ err, screeningId }, 'screening provider call failed');
      outcome = { status: 'pending', retry: { reason: 'unavailable' } };
    }
    await settleOutcome(deps, s, outcome, failures);
    return true;
  },
});

export async function screenWallet(deps: D, auth: ClientAuth, input: ScreenInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'wallet_screening');
  assertScreeningConfigured(deps);
  checkAddress(input.chain, input.address);
  await checkCustomer(deps.db, auth.clientId, input.user_id, input.business_customer_id);
  const now = deps.clock.now();
  const maxAge = input.max_age_seconds ?? 0;
  if (maxAge > 0) {
    const existing = await findWalletByAddress(
      deps.db,
      auth.clientId,
      input.chain,
      normalizeAddress(input.chain, input.address),
    );
    const fresh =
      existing &&
      (await freshCompletedScreening(deps.db, existing.id, new Date(now.getTime() - maxAge * 1000)));
    if (fresh) return { status: 200, body: toScreeningView(fresh, true) };
  }
  const { screening } = await deps.db.transaction((tx) =>
    createPendingScreening(tx, deps, now, auth.clientId, input, 'api'),
  );
  return { status: 201, body: toScreeningView(await runProvider(deps, screening)) };
}

export async function getScreening(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const s = await findScreening(deps.db, clientId, id);
  if (!s) throw notFound(ScreeningMessages.screeningNotFound);
  return toScreeningView(s);
}

export async function listClientWallets(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  p: PageParams,
  f: WalletFilters,
) {
  const { rows, total } = await listWallets(deps.db, clientId, { ...f, q: normalizeSearchQuery(f.q) }, p);
  return counterPage('wallets', rows.map(toWalletView), total, p);
}

export async function getWallet(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const w = await findWallet(deps.db, clientId, id);
  if (!w) throw notFound(ScreeningMessages.walletNotFound);
  const screenings = await latestScreenings(deps.db, w.id);
  return { ...toWalletView(w), screenings: screenings.map((s) => toScreeningView(s)) };
}

export interface PatchWalletInput {
  label?: string | null;
  monitored?: boolean;
  user_id?: string | null;
  business_customer_id?: string | null;
}

export async function patchWallet(deps: D, auth: ClientAuth, id: string, input: PatchWalletInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'wallet_screening');
  await checkCustomer(deps.db, auth.clientId, input.user_id, input.business_customer_id);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const w = await findWallet(tx, auth.clientId, id, true);
    if (!w) throw notFound(ScreeningMessages.walletNotFound);
    const set: Partial<WalletRow> = {};
    if (input.label !== undefined) set.label = input.label;
    if (input.user_id !== undefined) {
      set.userId = input.user_id;
      if (input.user_id) set.businessCustomerId = null;
    }
    if (input.business_customer_id !== undefined) {
      set.businessCustomerId = input.business_customer_id;
      if (input.business_customer_id) set.userId = null;
    }
    if (input.monitored !== undefined && input.monitored !== w.monitored) {
      set.monitored = input.monitored;
      const base = w.lastScreenedAt ?? now;
      set.nextRescreenAt = input.monitored
        ? new Date(Math.max(now.getTime(), base.getTime() + deps.config.screeningRescreenHours * 3600_000))
        : null;
    }
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    const before = toWalletView(w) as Record<string, unknown>;
    const after = toWalletView({ ...w, ...set }) as Record<string, unknown>;
    for (const k of ['label', 'monitored', 'user_id', 'business_customer_id'])
      if (before[k] !== after[k]) changes[k] = { from: before[k], to: after[k] };
    const updated = await updateWallet(tx, w.id, { ...set, updatedAt: now });
    if (set.monitored !== undefined) await syncRescreenTimer(tx, deps.clock, updated);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'wallet.updated',
      at: now,
      target: { type: 'wallet', id: w.id, label: `${w.chain} ${w.address}` },
      changes,
    });
  });
  return getWallet(deps, auth.clientId, id);
}

/** A new screening of a known wallet (`rescreen` from the API, `monitoring` from the worker). */
export async function rescreenWallet(
  deps: D,
  clientId: string,
  walletId: string,
  trigger: Trigger = 'rescreen',
) {
  const now = deps.clock.now();
  const { screening } = await deps.db.transaction(async (tx) => {
    const w = await findWallet(tx, clientId, walletId, true);
    if (!w) throw notFound(ScreeningMessages.walletNotFound);
    return createPendingScreening(
      tx,
      deps,
      now,
      clientId,
      { chain: w.chain as Chain, address: w.address },
      trigger,
    );
  });
  return runProvider(deps, screening);
}

export async function rescreenClientWallet(deps: D, auth: ClientAuth, walletId: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'wallet_screening');
  assertScreeningConfigured(deps);
  return toScreeningView(await rescreenWallet(deps, auth.clientId, walletId));
}

/** Sandbox: the simulator sends the pending screening's result through the signed route. */
export async function simulateScreening(
  deps: D,
  auth: ClientAuth,
  id: string,
  input: { risk_level: RiskLevel; sanctions_hit?: boolean; categories?: RiskCategory[] },
) {
  const sim = deps.providers.screening.sandbox;
  if (deps.config.environment !== 'sandbox' || !sim) throw notFound(M.notFound);
  const s = await findScreening(deps.db, auth.clientId, id);
  if (!s) throw notFound(ScreeningMessages.screeningNotFound);
  if (s.status !== 'pending') throw badRequest(ScreeningMessages.notPending(s.status));
  await sim.simulateScreening(s.id, {
    status: 'completed',
    risk: sandboxRisk(input.risk_level, { sanctionsHit: input.sanctions_hit, categories: input.categories }),
  });
  return getScreening(deps, auth.clientId, id);
}

/** How long a re-screen waits on a node that has no screening provider (the wallet keeps its due time). */
const NO_PROVIDER_RETRY_MS = 3600_000;

/**
 * The re-screen timer's handler: a wallet still monitored and due gets a `monitoring` screening
 * (which pushes `next_rescreen_at` by SVC_SCREENING_RESCREEN_HOURS and re-arms the timer in the same
 * transaction, under the wallet's lock), then the provider is asked. A wallet no longer monitored is
 * left alone; one whose time moved later gets its timer moved there.
 */
export const walletRescreenTimer = defineTimer<{ walletId: string; clientId: string }>({
  ...WALLET_RESCREEN,
  label: 'Monitored wallet re-screen',
  backfill: () => sql`
    select 'wallet:' || id::text as key,
           jsonb_build_object('walletId', id::text, 'clientId', client_id::text) as payload,
           client_id, next_rescreen_at as run_at
      from screening_wallets where monitored = true and next_rescreen_at is not null`,
  async fire(deps, payload) {
    const now = deps.clock.now();
    if (!deps.providers.screening.configured) {
      await setTimer(deps.db, deps.clock, WALLET_RESCREEN, {
        payload,
        runAt: new Date(now.getTime() + NO_PROVIDER_RETRY_MS),
        clientId: payload.clientId,
      });
      return false;
    }
    const screening = await deps.db.transaction(async (tx) => {
      const w = await findWallet(tx, payload.clientId, payload.walletId, true);
      if (!w?.monitored || !w.nextRescreenAt) return null;
      if (w.nextRescreenAt > now) {
        await syncRescreenTimer(tx, deps.clock, w);
        return null;
      }
      const created = await createPendingScreening(
        tx,
        deps,
        now,
        w.clientId,
        { chain: w.chain as Chain, address: w.address },
        'monitoring',
      );
      return created.screening;
    });
    if (!screening) return false;
    await runProvider(deps, screening);
    return true;
  },
});

/** Runs the due re-screen timers now (runDueScreeningTimers, tests); returns how many wallets were re-screened. */
export async function rescreenDueWallets(deps: Deps): Promise<number> {
  return runDueTimers(deps, [walletRescreenTimer]);
}
