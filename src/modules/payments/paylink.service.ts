/** POST /checkout/paylink: validates, claims the idempotency key, opens a network session, records the payment. */
import { and, eq } from 'drizzle-orm';
import { businessCustomers, clients, kycUsers, opcos, projects, transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import type { ClientAuth } from '../../plugins/auth';
import { BankProviderError } from '../../providers/bank/port';
import { addSeconds } from '../../shared/clock';
import { AppError, badRequest, conflict, forbidden, notFound, ValidationError } from '../../shared/errors';
import { newId, randomToken } from '../../shared/ids';
import { M } from '../../shared/messages';
import { isKnownCurrency, normalizeAmount } from '../../shared/money';
import {
  claimIdempotencyKey,
  completeIdempotencyClaim,
  releaseIdempotencyClaim,
  requestFingerprint,
  requireIdempotencyKey,
} from './idempotency';
import { findTransactionForClient, type TransactionRow } from './payments.repo';
import { type Actor, recordTimelineEntry } from './status.service';

export interface PaylinkInput {
  amount: string;
  currency: string;
  project_id: string;
  user_id?: string;
  business_customer_id?: string;
  description?: string;
  expires_in_seconds: number;
  metadata?: Record<string, unknown>;
}

export function actorOf(auth: ClientAuth): Actor {
  return { actorType: auth.actorType, actorAccountId: auth.accountId };
}

const AMOUNT_PROBLEMS = {
  format: 'Amount must be a decimal string such as "125.50"',
  precision: 'Amount has more decimal places than the currency allows',
  not_positive: 'Amount must be greater than 0',
} as const;

/** Schema-level checks a JSON schema cannot express (422 with loc). */
function validatePaylinkInput(body: PaylinkInput): { amount: string; currency: string } {
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
  const currency = body.currency;
  if (!isKnownCurrency(currency)) {
    issues.push({
      loc: ['body', 'currency'],
      msg: 'Currency must be an ISO 4217 code of 3 letters',
      type: 'value_error',
    });
  }
  let amount = body.amount;
  const n = normalizeAmount(body.amount, isKnownCurrency(currency) ? currency : 'EUR');
  if (!n.ok) issues.push({ loc: ['body', 'amount'], msg: AMOUNT_PROBLEMS[n.problem], type: 'value_error' });
  else amount = n.value;
  if (issues.length > 0) throw new ValidationError(issues);
  return { amount, currency };
}

interface PaylinkContext {
  merchantName: string;
}

/** Business rules in the order the spec lists them; throws the spec's errors. */
async function checkPaylinkAllowed(
  deps: Deps,
  clientId: string,
  body: PaylinkInput,
): Promise<PaylinkContext> {
  const [client] = await deps.db.select().from(clients).where(eq(clients.id, clientId));
  if (!client) throw notFound(M.notFound);
  if (!client.paymentLinksEnabled) throw forbidden(M.paymentLinksDisabled);
  if (!client.callbackUrl) throw badRequest(M.callbackUrlNotSet);
  if (body.user_id) {
    const [u] = await deps.db
      .select({ id: kycUsers.id })
      .from(kycUsers)
      .where(and(eq(kycUsers.id, body.user_id), eq(kycUsers.clientId, clientId)));
    if (!u) throw notFound(M.userNotFoundCreateFirst);
  } else if (body.business_customer_id) {
    const [b] = await deps.db
      .select({ id: businessCustomers.id })
      .from(businessCustomers)
      .where(
        and(eq(businessCustomers.id, body.business_customer_id), eq(businessCustomers.clientId, clientId)),
      );
    if (!b) throw notFound(M.userNotFoundCreateFirst);
  }
  const [project] = await deps.db
    .select()
    .from(projects)
    .where(and(eq(projects.id, body.project_id), eq(projects.clientId, clientId)));
  if (!project) throw notFound(M.projectNotFound);
  if (project.isFrozen) throw forbidden(M.projectFrozen);
  if (!project.opcoId) throw badRequest(M.opcoNoSubTpp);
  const [opco] = await deps.db
    .select({ status: opcos.status, subTppId: opcos.subTppId })
    .from(opcos)
    .where(and(eq(opcos.id, project.opcoId), eq(opcos.clientId, clientId)));
  if (opco?.status !== 'activated' || !opco.subTppId?.trim()) throw badRequest(M.opcoNoSubTpp);
  return { merchantName: client.companyName };
}

export interface PaylinkResult {
  created: boolean;
  transaction: TransactionRow;
}

export async function createPaymentLink(
  deps: Deps,
  auth: ClientAuth,
  idempotencyHeader: string | string[] | undefined,
  body: PaylinkInput,
): Promise<PaylinkResult> {
  const { amount, currency } = validatePaylinkInput(body);
  const key = requireIdempotencyKey(idempotencyHeader);
  const now = deps.clock.now();
  const claim = await claimIdempotencyKey(
    deps.db,
    auth.clientId,
    key,
    requestFingerprint(body),
    now,
    deps.config.idempotencyStaleSeconds,
  );
  if (claim.kind === 'replay') {
    const original = await findTransactionForClient(deps.db, auth.clientId, claim.transactionId);
    if (!original) throw new AppError(500, M.failedToInitiatePayment);
    return { created: false, transaction: original };
  }
  try {
    const ctx = await checkPaylinkAllowed(deps, auth.clientId, body);
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
    const transaction = await deps.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(transactions)
        .values({
          id,
          clientId: auth.clientId,
          projectId: body.project_id,
          userId: body.user_id ?? null,
          businessCustomerId: body.business_customer_id ?? null,
          amount,
          currency,
          description: body.description ?? null,
          metadata: body.metadata ?? {},
          status: 'pending',
          providerStatus: 'initiated',
          reconciliationState: 'none',
          refId,
          checkoutToken: randomToken(24),
          expiresAt,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await recordTimelineEntry(
        tx,
        row!,
        null,
        { occurredAt: now, now, actor: actorOf(auth) },
        {
          kind: 'created',
          providerStatus: 'initiated',
          reason: 'Payment link created',
        },
      );
      // Rolls the insert back when our claim was taken over meanwhile (stale release).
      if (!(await completeIdempotencyClaim(tx, claim.claimId, id, now)))
        throw conflict(M.idempotencyInProgress);
      return row!;
    });
    return { created: true, transaction };
  } catch (err) {
    await releaseIdempotencyClaim(deps.db, claim.claimId).catch((e) =>
      deps.log.error({ err: e }, 'could not release idempotency claim'),
    );
    if (err instanceof AppError || err instanceof BankProviderError) throw err;
    deps.log.error({ err }, 'payment link creation failed');
    throw new AppError(500, M.failedToInitiatePayment);
  }
}
