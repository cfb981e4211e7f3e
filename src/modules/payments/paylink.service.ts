/** POST /checkout/paylink: validates, claims the idempotency key, opens a network session, records the payment. */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { toSql } from '../../db/hot';
import type { ContractRequestStatus } from '../../db/schema/index';
import { paymentIdempotencyKeys } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { claimIdempotencyKey, idempotencyKeyOf, releaseIdempotencyClaim } from '../../platform/idempotency';
import type { ClientAuth } from '../../plugins/auth';
import { BankProviderError } from '../../providers/bank/port';
import { addSeconds } from '../../shared/clock';
import { AppError, badRequest, conflict, forbidden, notFound, ValidationError } from '../../shared/errors';
import { requestFingerprint } from '../../shared/fingerprint';
import { newId } from '../../shared/ids';
import { M } from '../../shared/messages';
import { checkPaymentMoney, type PaymentLimits } from '../../shared/payment-money';
import { checkClientUrl } from '../../shared/urls';
import { networkCurrencyProblem } from './network-currency.service';
import type { Origin } from './origin.policy';
import {
  claimKeyWithFacts,
  factsInput,
  insertPaymentLink,
  type PaylinkFacts,
  paylinkFactsText,
} from './paylink.statements';
import { PaymentMessages } from './payments.messages';
import { findTransactionForClient, type TransactionRow } from './payments.repo';
import type { Actor } from './status.service';

export interface PaylinkInput {
  amount: string;
  currency: string;
  project_id: string;
  user_id?: string;
  business_customer_id?: string;
  description?: string;
  expires_in_seconds: number;
  metadata?: Record<string, unknown>;
  /** POST /checkout/paylink only: a completed contract request of the client. */
  contract_request_id?: string;
  /** POST /checkout/paylink only: where the payer returns instead of the client's callback_url. */
  redirect_url?: string;
}

export function actorOf(auth: ClientAuth): Actor {
  return { actorType: auth.actorType, actorAccountId: auth.accountId };
}

/**
 * Schema-level checks a JSON schema cannot express (422 with loc): one payer, and the payment's
 * money (shared/payment-money.ts: currency of payment, deployment's currencies, amount and maximum).
 * Bulk rows, schedules, recurring payments and contract payments run the same checks.
 */
export function validatePaylinkInput(
  body: PaylinkInput,
  limits: PaymentLimits,
  /** false for a sum of several payments (a schedule plan's total; its instalments are checked). */
  maximum = true,
): { amount: string; currency: string } {
  const issues = [];
  const hasUser = body.user_id !== undefined;
  const hasBusiness = body.business_customer_id !== undefined;
  if (hasUser === hasBusiness) {
    issues.push({
      loc: ['body', hasUser ? 'business_customer_id' : 'user_id'],
      msg: 'Exactly one of user_id and business_customer_id is required',
      type: 'value_error',
    });
  }
  const money = checkPaymentMoney(
    limits,
    body,
    { amount: ['body', 'amount'], currency: ['body', 'currency'] },
    maximum,
  );
  issues.push(...money.issues);
  if (issues.length > 0) throw new ValidationError(issues);
  return { amount: money.amount!, currency: body.currency };
}

interface PaylinkContext {
  merchantName: string;
}

type PaylinkTarget = Pick<PaylinkInput, 'project_id' | 'user_id' | 'business_customer_id'>;

/**
 * The facts of one or many bodies in a single round trip (client, payer, project and its opco, all
 * scoped to the caller's client); null when the client does not exist. Bulk jobs check 500 rows at once.
 */
export async function loadPaylinkFacts(
  db: Deps['db'],
  clientId: string,
  bodies: readonly PaylinkTarget[],
): Promise<PaylinkFacts[] | null> {
  const res = await db.execute(toSql(paylinkFactsText('$1', '$2'), [clientId, factsInput(bodies)]));
  const rows = rowsOf<PaylinkFacts & { ord: number }>(res);
  if (rows.length === 0 && bodies.length > 0) return null;
  return rows;
}

/**
 * The business rules in the order the spec lists them; throws the spec's errors. An archived project
 * takes no new request (a link, a bulk upload, a recurring payment, a schedule, a contract send), but
 * what it already took goes on: `forExistingRequest` is set for the payments those create later.
 */
export function assertPaylinkAllowed(f: PaylinkFacts, opts: { forExistingRequest?: boolean } = {}): void {
  if (!f.payment_links_enabled) throw forbidden(M.paymentLinksDisabled);
  if (!f.callback_url) throw badRequest(M.callbackUrlNotSet);
  if (!f.payer_exists) throw notFound(M.userNotFoundCreateFirst);
  if (!f.project_found) throw notFound(M.projectNotFound);
  if (f.project_frozen) throw forbidden(M.projectFrozen);
  if (f.project_archived && !opts.forExistingRequest) throw badRequest(PaymentMessages.projectArchived);
  if (f.opco_status === 'deactivated') throw badRequest(PaymentMessages.opcoDeactivated);
  if (f.opco_status !== 'activated' || !f.sub_tpp_id?.trim()) throw badRequest(M.opcoNoSubTpp);
}

function merchantOf(
  f: PaylinkFacts | null | undefined,
  forExistingRequest: boolean,
): PaylinkContext & { facts: PaylinkFacts } {
  if (!f) throw notFound(M.notFound);
  assertPaylinkAllowed(f, { forExistingRequest });
  return { merchantName: f.company_name, facts: f };
}

export interface PaylinkResult {
  created: boolean;
  transaction: TransactionRow;
}

/** One payment link, whoever asks for it: the API route, or the platform (bulk rows, schedules, contracts, …). */
export interface PaymentLinkRequest {
  clientId: string;
  actor: Actor;
  /** The raw key: a merchant's X-Idempotency-Key, or a key the platform derives. */
  idempotencyKey: string | string[] | undefined;
  /** `api`: keys merchants send; `platform`: keys the platform derives (bulk:…, schedule:…, contract:…). */
  keyScope: 'api' | 'platform';
  body: PaylinkInput;
  origin: Origin;
  contractRequestId?: string | null;
}

/** POST /checkout/paylink. */
export async function createPaymentLink(
  deps: Deps,
  auth: ClientAuth,
  idempotencyHeader: string | string[] | undefined,
  body: PaylinkInput,
): Promise<PaylinkResult> {
  if (body.redirect_url !== undefined) {
    // The callback URL's rules, https only in production (like the webhook URL).
    const httpsOnly = deps.config.environment === 'production';
    body = { ...body, redirect_url: checkClientUrl(['body', 'redirect_url'], body.redirect_url, httpsOnly) };
  }
  if (body.contract_request_id) await assertContractCompleted(deps, auth.clientId, body.contract_request_id);
  return createPaymentLinkFor(deps, {
    clientId: auth.clientId,
    actor: actorOf(auth),
    idempotencyKey: idempotencyHeader,
    keyScope: 'api',
    body,
    origin: { type: 'paylink', id: null },
    contractRequestId: body.contract_request_id ?? null,
  });
}

/** `contract_request_id` on POST /checkout/paylink: the client's own request (404), completed (400). */
async function assertContractCompleted(deps: Deps, clientId: string, id: string): Promise<void> {
  const res = await deps.db.execute(
    sql`select status from contract_requests where id = ${id}::uuid and client_id = ${clientId}::uuid`,
  );
  const row = rowsOf<{ status: ContractRequestStatus }>(res)[0];
  if (!row) throw notFound('Contract request not found');
  if (row.status !== 'completed') throw badRequest('Contract request is not completed');
}

/**
 * The platform's way to create a payment link (ARCHITECTURE: no second way to make a transaction):
 * the same checks, idempotency and timeline as the API, with a derived key in the platform's own key
 * scope (so a merchant's key can never collide) and the creating resource as `origin`. The actor is
 * the person whose action caused it, or AUTOMATIC for a worker.
 */
export function createPlatformPaymentLink(
  deps: Deps,
  req: {
    clientId: string;
    actor: Actor;
    key: string;
    body: PaylinkInput;
    origin: Origin;
    contractRequestId?: string | null;
  },
): Promise<PaylinkResult> {
  return createPaymentLinkFor(deps, {
    clientId: req.clientId,
    actor: req.actor,
    idempotencyKey: req.key,
    keyScope: 'platform',
    body: req.body,
    origin: req.origin,
    contractRequestId: req.contractRequestId ?? null,
  });
}

/**
 * The claim and the facts are one statement, the payment with its timeline row, activity entry
 * and claim completion another (paylink.statements.ts); only a key already taken goes through the
 * full claim procedure (replay, 409, or a stale claim taken over).
 */
async function createPaymentLinkFor(deps: Deps, req: PaymentLinkRequest): Promise<PaylinkResult> {
  const { body } = req;
  const { amount, currency } = validatePaylinkInput(body, deps.config);
  const key = idempotencyKeyOf(req.idempotencyKey, true);
  // No payment network configured (SVC_BANK_PROVIDER=none): refuse before anything is written.
  if (deps.providers.bank.available === false)
    throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
  const now = deps.clock.now();
  const fingerprint = requestFingerprint(body);
  const fast = await claimKeyWithFacts(deps.database, {
    clientId: req.clientId,
    key,
    scope: req.keyScope,
    fingerprint,
    now,
    body,
  });
  let claimId = fast.claimId;
  if (!claimId) {
    const claim = await claimIdempotencyKey(deps.db, paymentIdempotencyKeys, {
      clientId: req.clientId,
      scope: req.keyScope,
      key,
      fingerprint,
      now,
      staleSeconds: deps.config.idempotencyStaleSeconds,
    });
    if (claim.kind === 'replay') {
      const { transactionId } = claim.record;
      const original =
        transactionId && (await findTransactionForClient(deps.db, req.clientId, transactionId));
      if (!original) throw new AppError(500, M.failedToInitiatePayment);
      return { created: false, transaction: original };
    }
    claimId = claim.id;
  }
  try {
    const ctx = merchantOf(
      fast.claimId ? fast.facts : (await loadPaylinkFacts(deps.db, req.clientId, [body]))?.[0],
      req.origin.type !== 'paylink',
    );
    // A currency the network cannot settle to this opco: 422 at currency now, not at bank choice.
    const currencyProblem = await networkCurrencyProblem(deps, currency, ctx.facts);
    if (currencyProblem)
      throw new ValidationError([{ loc: ['body', 'currency'], msg: currencyProblem, type: 'value_error' }]);
    const id = newId();
    const expiresAt = addSeconds(now, body.expires_in_seconds);
    // Network call outside any database transaction; the claim already records our intent.
    let refId: string;
    try {
      ({ refId } = await deps.providers.bank.createSession({
        transactionId: id,
        amount,
        currency,
        merchantName: ctx.merchantName,
        expiresAt,
      }));
    } catch (err) {
      deps.log.error({ err, transactionId: id }, 'payment network session creation failed');
      throw new AppError(500, M.failedToInitiatePayment);
    }
    const transaction = await insertPaymentLink(deps.database, {
      id,
      clientId: req.clientId,
      claimId,
      body,
      amount,
      currency,
      origin: req.origin,
      contractRequestId: req.contractRequestId ?? null,
      refId,
      expiresAt,
      now,
      actor: req.actor,
      activity: {
        clientId: req.clientId,
        action: 'payment_link.created',
        at: now,
        target: { type: 'transaction', id, label: `${amount} ${currency}` },
        metadata: { origin_type: req.origin.type, origin_id: req.origin.id, project_id: body.project_id },
      },
    });
    // Nothing was written: our claim was released as stale and taken over meanwhile.
    if (!transaction) throw conflict(M.idempotencyInProgress);
    return { created: true, transaction };
  } catch (err) {
    await releaseIdempotencyClaim(deps.db, paymentIdempotencyKeys, claimId).catch((e) =>
      deps.log.error({ err: e }, 'could not release idempotency claim'),
    );
    if (err instanceof AppError || err instanceof BankProviderError) throw err;
    deps.log.error({ err }, 'payment link creation failed');
    throw new AppError(500, M.failedToInitiatePayment);
  }
}
