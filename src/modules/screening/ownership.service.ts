/**
 * Wallet ownership requests (docs/guides/screening.md): a challenge to sign (EIP-191 or ed25519,
 * verified locally), a Satoshi test reported by the chain observer, or a self declaration; with
 * attempts, expiry and cancel. The hosted proof page uses the same functions by token.
 */
import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf, type Tx } from '../../db/client';
import type { SanctionsNameMatch } from '../../db/schema/sanctions-lists';
import type { Deps } from '../../deps';
import { fromUnits } from '../../platform/decimal';
import type { EventBus } from '../../platform/events';
import {
  defineTimer,
  enqueueJobId,
  type JobDefinition,
  runDueTimers,
  runJobsNow,
  setTimer,
  timerRef,
} from '../../platform/jobs/index';
import type { ClientAuth } from '../../plugins/auth';
import { reportedMatch } from '../../providers/sanctions/port';
import {
  type Chain,
  NATIVE_ASSET,
  normalizeAddress,
  supportsMessageSigning,
} from '../../shared/chain-addresses';
import { AppError, badRequest, conflict, invalidField, notFound } from '../../shared/errors';
import { randomToken } from '../../shared/ids';
import { normalizeSearchQuery, type PageParams, paginationMeta } from '../../shared/pagination';
import { recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import { ownershipProofEmailJob } from './ownership.jobs';
import {
  emitOwnershipEvent,
  moveOwnership,
  type OwnershipMethod,
  type OwnershipRow,
  TERMINAL,
} from './ownership.machine';
import {
  findOwnership,
  insertOwnership,
  listOwnership,
  type OwnershipFilters,
  updateOwnership,
} from './ownership.repo';
import { ScreeningMessages } from './screening.messages';
import { updateWallet, upsertWallet } from './screening.repo';
import { assertScreeningConfigured, checkAddress, checkCustomer } from './screening.service';
import { verifyOwnershipSignature } from './signatures.policy';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log' | 'mailer' | 'events'>;

export function toOwnershipView(r: OwnershipRow, publicUrl: string) {
  return {
    request_id: r.id,
    wallet_id: r.walletId,
    chain: r.chain,
    address: r.address,
    status: r.status,
    methods: r.methods,
    method: r.method,
    user_id: r.userId,
    business_customer_id: r.businessCustomerId,
    proof_url: `${publicUrl}/wallet-proof/${r.token}`,
    challenge: { message: r.challengeMessage, nonce: r.nonce },
    satoshi_test: r.satoshiTest,
    attempts_remaining: r.attemptsRemaining,
    failure_reason: r.failureReason,
    redirect_url: r.redirectUrl,
    delivery: r.delivery as 'email' | 'none',
    client_reference: r.clientReference,
    assurance: r.assurance,
    declarant_sanctions_matches: r.declarantSanctionsMatches ?? null,
    declarant_sanctions_screening: r.declarantSanctionsScreening ?? null,
    expires_at: r.expiresAt.toISOString(),
    verified_at: r.verifiedAt ? r.verifiedAt.toISOString() : null,
    created_at: r.createdAt.toISOString(),
  };
}

export type OwnershipView = ReturnType<typeof toOwnershipView>;

export interface CreateOwnershipInput {
  chain: Chain;
  address: string;
  user_id?: string;
  business_customer_id?: string;
  methods?: OwnershipMethod[];
  expires_in_seconds?: number;
  redirect_url?: string;
  delivery?: 'email' | 'none';
  client_reference?: string;
}

/** Creates the request in the caller's transaction (the API and travel rule's unhosted wallets). */
export async function createOwnershipInTx(
  tx: DbOrTx,
  deps: Pick<Deps, 'config'> & Partial<Pick<Deps, 'providers'>>,
  now: Date,
  clientId: string,
  input: CreateOwnershipInput,
): Promise<OwnershipRow> {
  const signing = supportsMessageSigning(input.chain);
  // A provider without a chain observer (observesDeposits false) cannot run a Satoshi test: the
  // default leaves it out (self-declaration where no signature is possible) and asking for it is 400.
  const observer = deps.providers?.screening.observesDeposits !== false;
  const byDefault: OwnershipMethod[] = observer
    ? signing
      ? ['message_signing', 'satoshi_test']
      : ['satoshi_test']
    : signing
      ? ['message_signing']
      : ['self_declaration'];
  const methods = [...new Set(input.methods ?? byDefault)];
  if (methods.includes('message_signing') && !signing)
    throw badRequest(ScreeningMessages.methodNotSupported('message_signing', input.chain));
  if (methods.includes('satoshi_test') && !observer)
    throw badRequest(ScreeningMessages.methodNotSupported('satoshi_test', input.chain));
  const res = await tx.execute(sql`select company_name from clients where id = ${clientId}::uuid`);
  const clientName = rowsOf<{ company_name: string }>(res)[0]?.company_name ?? 'The merchant';
  const wallet = await upsertWallet(tx, {
    clientId,
    chain: input.chain,
    address: input.address,
    normalizedAddress: normalizeAddress(input.chain, input.address),
    userId: input.user_id ?? null,
    businessCustomerId: input.business_customer_id ?? null,
    riskLevel: 'unknown',
    createdAt: now,
    updatedAt: now,
  });
  const nonce = randomToken(16);
  const ttl = input.expires_in_seconds ?? deps.config.walletOwnershipTtlSeconds;
  const r = await insertOwnership(tx, {
    clientId,
    walletId: wallet.id,
    chain: wallet.chain,
    address: wallet.address,
    status: 'pending',
    methods,
    userId: input.user_id ?? null,
    businessCustomerId: input.business_customer_id ?? null,
    token: randomToken(32),
    challengeMessage: `${clientName} asks you to prove control of ${wallet.address} on ${wallet.chain}. Nonce: ${nonce}. Issued: ${now.toISOString()}`,
    nonce,
    attemptsRemaining: deps.config.walletOwnershipMaxAttempts,
    redirectUrl: input.redirect_url ?? null,
    delivery: input.delivery ?? 'none',
    clientReference: input.client_reference ?? null,
    previousOwnershipStatus: wallet.ownershipStatus === 'pending' ? 'unverified' : wallet.ownershipStatus,
    expiresAt: new Date(now.getTime() + ttl * 1000),
    createdAt: now,
    updatedAt: now,
  });
  await updateWallet(tx, wallet.id, { ownershipStatus: 'pending', updatedAt: now });
  await setTimer(tx, { now: () => now }, OWNERSHIP_EXPIRY, {
    payload: { requestId: r.id },
    runAt: r.expiresAt,
    clientId,
  });
  await emitOwnershipEvent(tx, r, null, now);
  await recordActivity(tx, {
    clientId,
    action: 'wallet_ownership_request.created',
    at: now,
    target: { type: 'wallet_ownership_request', id: r.id, label: `${r.chain} ${r.address}` },
    metadata: { methods, delivery: r.delivery },
  });
  return r;
}

/** The wallet's open (pending or verifying, not yet expired) ownership request, locking the wallet row. */
async function openOwnershipOf(
  tx: DbOrTx,
  clientId: string,
  input: CreateOwnershipInput,
  now: Date,
): Promise<{ id: string; status: string } | null> {
  const normalized = normalizeAddress(input.chain, input.address);
  const res = await tx.execute(sql`
    select r.id, r.status
      from screening_wallets w
      join wallet_ownership_requests r on r.wallet_id = w.id and r.client_id = w.client_id
     where w.client_id = ${clientId}::uuid and w.chain = ${input.chain} and w.normalized_address = ${normalized}
       and r.status in ('pending', 'verifying') and r.expires_at > ${now.toISOString()}::timestamptz
     order by r.created_at desc
     limit 1
       for update of w`);
  return rowsOf<{ id: string; status: string }>(res)[0] ?? null;
}

export async function createOwnershipRequest(deps: Deps, auth: ClientAuth, input: CreateOwnershipInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'wallet_screening');
  assertScreeningConfigured(deps);
  checkAddress(input.chain, input.address);
  if (!input.user_id === !input.business_customer_id)
    throw invalidField(['body', 'user_id'], ScreeningMessages.oneCustomer);
  await checkCustomer(deps.db, auth.clientId, input.user_id, input.business_customer_id);
  const now = deps.clock.now();
  let job: string | null = null;
  const r = await deps.db.transaction(async (tx) => {
    // One open request per wallet: a second one would leave the payer two proofs to choose from.
    const open = await openOwnershipOf(tx, auth.clientId, input, now);
    if (open) throw conflict(ScreeningMessages.ownershipOpen(open.id, open.status));
    const r = await createOwnershipInTx(tx, deps, now, auth.clientId, input);
    // The proof email is owed from this commit on (a job), and goes out right after it.
    if (r.delivery === 'email')
      job = await enqueueJobId(tx, deps.clock, ownershipProofEmailJob, {
        payload: { requestId: r.id },
        clientId: r.clientId,
      });
    return r;
  });
  await runJobsNow(deps, [ownershipProofEmailJob as JobDefinition<never>], [job]);
  return toOwnershipView(r, deps.config.publicUrl);
}

export async function listOwnershipRequests(deps: D, clientId: string, p: PageParams, f: OwnershipFilters) {
  const { rows, total } = await listOwnership(deps.db, clientId, { ...f, q: normalizeSearchQuery(f.q) }, p);
  return {
    ownership_requests: rows.map((r) => toOwnershipView(r, deps.config.publicUrl)),
    pagination: paginationMeta(total, p),
  };
}

export async function getOwnershipRequest(deps: D, clientId: string, id: string) {
  const r = await findOwnership(deps.db, clientId, id);
  if (!r) throw notFound(ScreeningMessages.ownershipNotFound);
  return toOwnershipView(r, deps.config.publicUrl);
}

export interface ProofInput {
  method: OwnershipMethod;
  signature?: string;
  declarant_name?: string;
  /** The declarant name's sanctions hits, screened before the transaction (`screenDeclarant`). */
  declarantMatches?: SanctionsNameMatch[] | null;
}

/**
 * Screens a self-declaration's declarant name against the sanctions lists, before the proof's
 * transaction (the lists read the database). The hits are recorded on the request and reported,
 * never decided on: a declaration stays `low` assurance either way. Null when there is nothing to
 * screen or the deployment has no lists; 503 when lists are configured but cannot answer.
 */
export async function screenDeclarant(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>,
  input: Pick<ProofInput, 'method' | 'declarant_name'>,
): Promise<SanctionsNameMatch[] | null> {
  const name = input.declarant_name?.trim();
  if (input.method !== 'self_declaration' || !name || !deps.providers.sanctions.configured) return null;
  try {
    const [hits = []] = await deps.providers.sanctions.screen(deps, [{ name, type: 'natural' }], {
      threshold: deps.config.sanctions.matchThreshold,
    });
    return hits.map((hit) => reportedMatch(hit, name));
  } catch (err) {
    deps.log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'declarant sanctions screening failed',
    );
    throw new AppError(503, ScreeningMessages.providerUnavailable);
  }
}

/** Applies a proof to the (row-locked) request; `invalid` means a wrong signature was counted. */
export async function applyProof(
  deps: D,
  tx: Tx,
  r: OwnershipRow,
  input: ProofInput,
): Promise<{ row: OwnershipRow; invalid: boolean }> {
  const now = deps.clock.now();
  if (TERMINAL.includes(r.status)) throw badRequest(ScreeningMessages.terminal(r.status));
  if (!r.methods.includes(input.method)) throw badRequest(ScreeningMessages.methodNotAllowed(input.method));
  if (r.status === 'verifying') throw badRequest(ScreeningMessages.methodNotAllowed(input.method));
  if (input.method === 'self_declaration') {
    const name = input.declarant_name?.trim();
    if (!name) throw invalidField(['body', 'declarant_name'], ScreeningMessages.declarantRequired);
    const row = await moveOwnership(tx, r, 'verified', {
      now,
      events: deps.events,
      set: {
        method: 'self_declaration',
        declarantName: name,
        assurance: 'low',
        declarantSanctionsMatches: input.declarantMatches ?? null,
        declarantSanctionsScreening: input.declarantMatches ? 'screened' : 'not_configured',
      },
    });
    return { row, invalid: false };
  }
  if (input.method === 'satoshi_test') {
    // A request made before the deployment switched to a provider without a chain observer.
    if (deps.providers.screening.observesDeposits === false)
      throw badRequest(ScreeningMessages.methodNotSupported('satoshi_test', r.chain));
    const amount = fromUnits(BigInt(randomInt(1, 100)), 5);
    const asset = NATIVE_ASSET[r.chain as Chain];
    const until = new Date(Math.min(r.expiresAt.getTime(), now.getTime() + 3600_000));
    const { depositAddress } = await deps.providers.screening.watchDeposit({
      requestId: r.id,
      chain: r.chain,
      fromAddress: r.address,
      asset,
      amount,
      until,
    });
    const row = await moveOwnership(tx, r, 'verifying', {
      now,
      events: deps.events,
      set: {
        method: 'satoshi_test',
        satoshiTest: { deposit_address: depositAddress, amount, asset, expires_at: until.toISOString() },
      },
    });
    // The deposit window ends first: the expiry timer moves to its end.
    await setTimer(tx, { now: () => now }, OWNERSHIP_EXPIRY, {
      payload: { requestId: r.id },
      runAt: until,
      clientId: r.clientId,
    });
    return { row, invalid: false };
  }
  const signature = input.signature?.trim();
  if (!signature) throw invalidField(['body', 'signature'], ScreeningMessages.signatureRequired);
  if (verifyOwnershipSignature(r.chain as Chain, r.address, r.challengeMessage, signature)) {
    const row = await moveOwnership(tx, r, 'verified', {
      now,
      events: deps.events,
      set: { method: 'message_signing', assurance: 'high' },
    });
    return { row, invalid: false };
  }
  const left = r.attemptsRemaining - 1;
  if (left <= 0) {
    const row = await moveOwnership(tx, r, 'failed', {
      now,
      events: deps.events,
      set: {
        attemptsRemaining: 0,
        method: 'message_signing',
        failureReason: ScreeningMessages.attemptsExhausted,
      },
    });
    return { row, invalid: true };
  }
  const row = await updateOwnership(tx, r.id, { attemptsRemaining: left, updatedAt: now });
  await recordActivity(tx, {
    clientId: r.clientId,
    action: 'wallet_ownership_request.signature_rejected',
    at: now,
    target: { type: 'wallet_ownership_request', id: r.id, label: `${r.chain} ${r.address}` },
    outcome: 'failure',
    metadata: { attempts_remaining: left },
  });
  return { row, invalid: true };
}

export async function submitProof(deps: D, auth: ClientAuth, id: string, input: ProofInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'wallet_screening');
  const declarantMatches = await screenDeclarant(deps, input);
  const res = await deps.db.transaction(async (tx) => {
    const r = await findOwnership(tx, auth.clientId, id, true);
    if (!r) throw notFound(ScreeningMessages.ownershipNotFound);
    return applyProof(deps, tx, r, { ...input, declarantMatches });
  });
  if (res.invalid) throw badRequest(ScreeningMessages.invalidSignature);
  return toOwnershipView(res.row, deps.config.publicUrl);
}

/** Locks a request in the caller's transaction (another area orders its locks after it). */
export async function lockOwnershipInTx(tx: DbOrTx, clientId: string, id: string) {
  return findOwnership(tx, clientId, id, true);
}

/** Cancels a request that is still open, in the caller's transaction (another area revoked its need). */
export async function cancelOwnershipInTx(
  tx: Tx,
  clientId: string,
  id: string,
  ctx: { now: Date; events: EventBus },
) {
  const r = await findOwnership(tx, clientId, id, true);
  if (!r || TERMINAL.includes(r.status)) return r ?? null;
  return moveOwnership(tx, r, 'canceled', ctx);
}

/** The proof page's address and status of a request, for another area's page; null when unknown. */
export async function ownershipLinkState(deps: Pick<Deps, 'db' | 'config'>, clientId: string, id: string) {
  const r = await findOwnership(deps.db, clientId, id);
  return r ? toOwnershipView(r, deps.config.publicUrl) : null;
}

export async function cancelOwnershipRequest(deps: D, auth: ClientAuth, id: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'wallet_screening');
  const row = await deps.db.transaction(async (tx) => {
    const r = await findOwnership(tx, auth.clientId, id, true);
    if (!r) throw notFound(ScreeningMessages.ownershipNotFound);
    if (TERMINAL.includes(r.status)) throw badRequest(ScreeningMessages.terminal(r.status));
    return moveOwnership(tx, r, 'canceled', { now: deps.clock.now(), events: deps.events });
  });
  return toOwnershipView(row, deps.config.publicUrl);
}

/**
 * The expiry timer of an ownership request: due at expires_at when the request is created, and at
 * the deposit window's end (never later than expires_at) when a satoshi test starts. The handler
 * re-reads the request under lock: past expires_at a pending or verifying request expires; a
 * verifying one past its deposit window fails (deposit window closed); anything else is left alone.
 */
export const OWNERSHIP_EXPIRY = timerRef<{ requestId: string }>({
  kind: 'screening.ownership_expiry',
  keyOf: (p) => `ownership:${p.requestId}`,
});

export const ownershipExpiryTimer = defineTimer<{ requestId: string }>({
  ...OWNERSHIP_EXPIRY,
  label: 'Wallet ownership request expiry',
  backfill: () => sql`
    select 'ownership:' || id::text as key, jsonb_build_object('requestId', id::text) as payload, client_id,
           least(expires_at, coalesce((satoshi_test->>'expires_at')::timestamptz, expires_at)) as run_at
      from wallet_ownership_requests where status in ('pending', 'verifying')`,
  async fire(deps, { requestId }) {
    return deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const res = await tx.execute(sql`
        select id from wallet_ownership_requests
         where id = ${requestId}::uuid
           and ((status = 'pending' and expires_at <= ${now.toISOString()}::timestamptz)
             or (status = 'verifying' and (expires_at <= ${now.toISOString()}::timestamptz
                 or (satoshi_test->>'expires_at')::timestamptz <= ${now.toISOString()}::timestamptz)))
         for update`);
      if (rowsOf(res).length === 0) return false;
      const r = (await findOwnership(tx, null, requestId))!;
      const events = deps.events;
      if (r.expiresAt <= now) await moveOwnership(tx, r, 'expired', { now, events });
      else
        await moveOwnership(tx, r, 'failed', {
          now,
          events,
          set: { failureReason: ScreeningMessages.depositWindowClosed },
        });
      return true;
    });
  },
});

/** Runs the due ownership expiry timers now (runDueScreeningTimers, tests); returns how many moved. */
export async function expireOwnershipRequests(deps: Deps, _limit = 50): Promise<number> {
  return runDueTimers(deps, [ownershipExpiryTimer]);
}
