/** The payer's side of a payment: what the hosted checkout shows and does. */
import { and, eq } from 'drizzle-orm';
import { clients, transactions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import {
  BankProviderError,
  BankRefusedError,
  bankTakes,
  type ConsentNotice,
} from '../../providers/bank/port';
import { keyedHash } from '../../shared/crypto';
import { AppError, conflict, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { buildCallbackRedirect } from '../payments/callback-url.policy';
import { recordNetworkAnswer, sessionRefOf, syncWithNetwork } from '../payments/network-sync.service';
import { payeeOfProject } from '../payments/payee.repo';
import { isTerminal } from '../payments/payments.machine';
import { PaymentMessages } from '../payments/payments.messages';
import { findTransactionByToken, type TransactionRow } from '../payments/payments.repo';
import { cancelTransaction, expireIfDue } from '../payments/payments.service';
import { AUTOMATIC, recordTimelineEntry } from '../payments/status.service';

export interface CheckoutState {
  transaction: TransactionRow;
  merchantName: string;
  callbackUrl: string | null;
  /** What the payer agrees to on our page (a network acting under its own licence), with the beneficiary. */
  consent: (ConsentNotice & { beneficiary: string }) | null;
}

/**
 * The network's consent notice for a payment (or a mandate) to this project's opco (null when the
 * network collects it). A mandate never asks the bank for the payer's account: no refund variant.
 */
export async function consentFor(
  deps: Deps,
  projectId: string,
  purpose: 'payment' | 'mandate' = 'payment',
): Promise<CheckoutState['consent']> {
  if (!deps.providers.bank.consentNotice) return null;
  const beneficiary = (await payeeOfProject(deps.db, projectId))?.name ?? '';
  const notice = deps.providers.bank.consentNotice(beneficiary, purpose);
  return notice ? { ...notice, beneficiary } : null;
}

const PAYER = AUTOMATIC; // the payer is not a client actor: actor_type null

export async function loadCheckout(deps: Deps, token: string): Promise<CheckoutState> {
  const t0 = await findTransactionByToken(deps.db, token);
  if (!t0) throw notFound(M.transactionNotFound);
  const transaction = await expireIfDue(deps, t0);
  const [client] = await deps.db
    .select({ name: clients.companyName, callbackUrl: clients.callbackUrl })
    .from(clients)
    .where(eq(clients.id, transaction.clientId));
  return {
    transaction,
    merchantName: client?.name ?? 'Merchant',
    callbackUrl: client?.callbackUrl ?? null,
    consent: await consentFor(deps, transaction.projectId),
  };
}

/** Where the payer goes back to: the payment's own redirect_url, else the client's callback_url. */
export function merchantReturnUrl(state: CheckoutState): string | null {
  const base = state.transaction.redirectUrl ?? state.callbackUrl;
  return base ? buildCallbackRedirect(base, state.transaction.id) : null;
}

/**
 * The banks a hosted page offers (with `currency`: only those that can take a payment in it); a
 * network that cannot list them (and has no cached list) is a 503 page.
 */
export async function bankChoices(deps: Deps, purpose: 'payment' | 'mandate', currency?: string) {
  try {
    const banks = await deps.providers.bank.listBanks({ purpose });
    return currency ? banks.filter((b) => bankTakes(b, currency)) : banks;
  } catch (err) {
    if (!(err instanceof BankProviderError)) throw err;
    deps.log.warn({ err }, 'bank list unavailable');
    throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
  }
}

/**
 * `continue`: the bank session is open. `url` is where the payer approves while the network waits for
 * that; `bankHasPayment` once the payer approved and the bank is executing the payment (no way back).
 */
export type SessionView =
  | { kind: 'choose'; restarted: boolean }
  | { kind: 'continue'; url: string | null; bankHasPayment: boolean };

/** Detail statuses before the payer approved at the bank (the network waits for the bank or the payer). */
const BEFORE_APPROVAL = new Set(['initiated', 'awaiting_bank_authorization']);

/** For a processing transaction: is the bank session still open (continue) or lapsed (choose again)? */
export async function describeSession(deps: Deps, t: TransactionRow): Promise<SessionView> {
  if (t.status === 'pending' && !t.transferId) return { kind: 'choose', restarted: false };
  const s = await deps.providers.bank.getSession(await sessionRefOf(deps, t)).catch(() => null);
  if (!s || s.expired) return { kind: 'choose', restarted: true };
  return {
    kind: 'continue',
    url: s.providerStatus === 'awaiting_bank_authorization' ? s.authorizationUrl : null,
    bankHasPayment: !BEFORE_APPROVAL.has(s.providerStatus),
  };
}

/** Where the payer waits while the bank has not answered (the checkout page shows "waiting for your bank"). */
const waitingPage = (token: string) => `/checkout/${encodeURIComponent(token)}`;

/**
 * The payer picked a bank. A session already under way at the network is continued, never started
 * twice; one that lapsed, or whose earlier start left nothing at the network, restarts with a new
 * ref_id. Intent first (reconciliation_state awaiting_provider_confirmation and the bank), then the
 * network call outside any database transaction, then its answer through the status machine.
 * Returns where to send the payer.
 */
export async function startBankAuthorization(
  deps: Deps,
  token: string,
  bankId: string,
  payerIp: string | null = null,
): Promise<string> {
  const state = await loadCheckout(deps, token);
  let t = state.transaction;
  if (isTerminal(t.status)) throw conflict(M.terminalCannotCheckout);
  const bank = deps.providers.bank;
  try {
    if (t.transferId || t.status === 'processing' || t.bankId) {
      const s = await bank.getSession(await sessionRefOf(deps, t));
      if (s?.transferId && !s.expired) {
        if (!t.transferId)
          await recordNetworkAnswer(
            deps,
            t.id,
            { transferId: s.transferId, providerStatus: s.providerStatus, occurredAt: s.updatedAt },
            PAYER,
          );
        if (s.providerStatus === 'awaiting_bank_authorization' && s.authorizationUrl)
          return s.authorizationUrl;
        return waitingPage(token);
      }
      if (!s || s.expired) t = await restartSession(deps, state, s ? 'expired' : 'not_started');
    }
    const payee = await payeeOfProject(deps.db, t.projectId);
    if (!payee) throw conflict(M.terminalCannotCheckout);
    // The short window after the session was requested and before the bank acknowledged it.
    const [marked] = await deps.db
      .update(transactions)
      .set({ reconciliationState: 'awaiting_provider_confirmation', bankId, updatedAt: deps.clock.now() })
      .where(
        and(eq(transactions.id, t.id), eq(transactions.status, t.status), eq(transactions.refId, t.refId)),
      )
      .returning({ id: transactions.id });
    if (!marked) throw conflict(M.terminalCannotCheckout);
    const started = await bank.startAuthorization({
      refId: t.refId,
      bankId,
      returnUrl: `${deps.config.publicUrl}/checkout/${token}/return`,
      payment: { amount: t.amount, currency: t.currency, payee, merchantReference: t.description },
      payer: { ipAddress: payerIp, psuId: psuIdOf(deps, t) },
    });
    if (started.providerStatus)
      await recordNetworkAnswer(
        deps,
        t.id,
        { transferId: started.transferId, providerStatus: started.providerStatus },
        PAYER,
      );
    else
      await deps.db
        .update(transactions)
        .set({ transferId: started.transferId, updatedAt: deps.clock.now() })
        .where(and(eq(transactions.id, t.id), eq(transactions.refId, t.refId)));
    return started.authorizationUrl ?? waitingPage(token);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const traceId = err instanceof BankProviderError ? err.traceId : null;
    deps.log.error(
      { err, transactionId: t.id, bankId, networkTraceId: traceId },
      'could not start bank authorization',
    );
    await deps.db.transaction(async (tx) => {
      const [row] = await tx
        .update(transactions)
        .set({ reconciliationState: 'none' })
        .where(
          and(
            eq(transactions.id, t.id),
            eq(transactions.reconciliationState, 'awaiting_provider_confirmation'),
          ),
        )
        .returning();
      // The failed call on the payment's timeline (our words, the network's trace id for support).
      if (row && err instanceof BankProviderError) {
        const now = deps.clock.now();
        await recordTimelineEntry(
          tx,
          row,
          row.status,
          { occurredAt: now, now, actor: PAYER, networkTrace: traceId },
          {
            kind: 'detail',
            providerStatus: null,
            reason:
              err instanceof BankRefusedError
                ? `The payment network refused the payment at bank ${bankId}: ${err.reason}`
                : `The payment network could not be reached when the payer chose bank ${bankId}`,
          },
        );
      }
    });
    if (err instanceof BankRefusedError) throw new AppError(422, BANK_REFUSED);
    if (err instanceof BankProviderError) throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
    throw err;
  }
}

/**
 * A stable pseudonymous id of the payer for the network's risk checks (Token.io `risk.psuId`, "the
 * merchant's unique customer identifier for the user"): a keyed hash of the client and the payer
 * record (user or business customer), so the same payer of the same merchant always gets the same
 * id and nothing personal, nor our own ids, leaves in clear. Null without a payer record.
 */
export function psuIdOf(deps: Pick<Deps, 'secrets'>, t: TransactionRow): string | null {
  const payer = t.userId ?? t.businessCustomerId;
  if (!payer) return null;
  return `psu-${keyedHash(deps.secrets.hashKey, `psu:v1:${t.clientId}:${payer}`).slice(0, 40)}`;
}

/** What the payer reads when the network refuses the payment at this bank (its own reason stays in our log). */
export const BANK_REFUSED =
  'This bank cannot take this payment right now. Choose another bank or try again later.';

async function restartSession(
  deps: Deps,
  state: CheckoutState,
  why: 'expired' | 'not_started',
): Promise<TransactionRow> {
  const t = state.transaction;
  const { refId } = await deps.providers.bank.createSession({
    transactionId: t.id,
    amount: t.amount,
    currency: t.currency,
    merchantName: state.merchantName,
    expiresAt: t.expiresAt,
  });
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(transactions)
      .set({ refId, transferId: null, bankId: null, updatedAt: now })
      .where(
        and(eq(transactions.id, t.id), eq(transactions.status, t.status), eq(transactions.refId, t.refId)),
      )
      .returning();
    if (!row) throw conflict(M.terminalCannotCheckout);
    await recordTimelineEntry(
      tx,
      row,
      row.status,
      { occurredAt: now, now, actor: PAYER },
      {
        kind: 'session_restarted',
        providerStatus: null,
        reason:
          why === 'expired'
            ? `Bank session ${t.refId} expired; payer restarted with a new session`
            : `Bank session ${t.refId} was never opened at the payment network; payer restarted with a new session`,
      },
    );
    return row;
  });
}

/**
 * The payer is back from the bank: read the payment at the network first (the callback's own
 * parameters are never trusted, and a notification may be late or lost). A failed read changes
 * nothing; the page then shows what is known and the reconciliation worker carries on.
 */
export async function syncOnReturn(deps: Deps, state: CheckoutState): Promise<CheckoutState> {
  try {
    const { transaction } = await syncWithNetwork(deps, state.transaction);
    return { ...state, transaction };
  } catch (err) {
    deps.log.warn({ err, transactionId: state.transaction.id }, 'payment network read on return failed');
    return state;
  }
}

/** The payer canceled on the hosted checkout. */
export async function cancelByPayer(deps: Deps, token: string): Promise<CheckoutState> {
  const state = await loadCheckout(deps, token);
  if (isTerminal(state.transaction.status)) return state;
  const transaction = await cancelTransaction(deps, state.transaction, PAYER, 'Canceled by the payer').catch(
    async (err) => {
      if (err instanceof AppError && err.statusCode === 409)
        return (await loadCheckout(deps, token)).transaction;
      throw err;
    },
  );
  return { ...state, transaction };
}
