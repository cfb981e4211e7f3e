/**
 * The hosted mandate authorization page `/checkout/mandate/{token}`: the payer picks a bank, the
 * bank's own page asks to authorize, reject or let it time out, and the bank's notification (through
 * the signed route) moves the recurring payment. Afterwards the payer returns to `redirect_url` or the
 * client's callback URL with `definition_id` appended.
 */
import { and, eq } from 'drizzle-orm';
import { clients, recurringPayments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { BankProviderError, BankRefusedError, type MandateCode } from '../../providers/bank/port';
import { AppError, badRequest } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { type CheckoutState, consentFor } from '../checkout/checkout.service';
import { payeeOfProject } from '../payments/payee.repo';
import { PaymentMessages } from '../payments/payments.messages';
import { applyMandateNotification } from './recurring.listeners';
import { type DefinitionRow, findDefinitionBy } from './recurring.repo';

export const MANDATE_PAGE = {
  notFound: 'Recurring payment not found',
  expired: 'This authorization link has expired',
  chooseBank: 'Choose your bank to continue.',
} as const;

export interface MandatePageState {
  d: DefinitionRow;
  merchantName: string;
  callbackUrl: string | null;
  expired: boolean;
  /** What the payer agrees to on our page (a network acting under its own licence). */
  consent: CheckoutState['consent'];
}

export async function loadMandatePage(deps: Deps, token: string): Promise<MandatePageState> {
  const d = await findDefinitionBy(deps.db, { token });
  if (!d) throw new AppError(404, MANDATE_PAGE.notFound);
  const [c] = await deps.db
    .select({ name: clients.companyName, callbackUrl: clients.callbackUrl })
    .from(clients)
    .where(eq(clients.id, d.clientId));
  const expired =
    (d.status === 'expired' && d.statusReason === 'authorization_link_expired') ||
    (d.status === 'pending_authorization' && d.authorizationExpiresAt <= deps.clock.now());
  return {
    d,
    merchantName: c?.name ?? 'Merchant',
    callbackUrl: c?.callbackUrl ?? null,
    expired,
    consent: await consentFor(deps, d.projectId, 'mandate'),
  };
}

/** Where the payer goes back to: redirect_url or the callback URL, with definition_id appended. */
export function mandateReturnUrl(s: MandatePageState): string | null {
  const base = s.d.redirectUrl ?? s.callbackUrl;
  if (!base) return null;
  const u = new URL(base);
  if (!u.searchParams.has('definition_id')) u.searchParams.set('definition_id', s.d.id);
  return u.toString();
}

/** The mandate request at the bank, from the definition (the sandbox page of recurring-sandbox.service.ts uses it too). */
export async function createBankMandate(
  deps: Deps,
  d: DefinitionRow,
  bankId: string,
  merchantName: string,
): Promise<{ mandateRef: string; authorizationUrl: string }> {
  const network = deps.providers.bank.mandates;
  if (!network) throw new AppError(503, 'Bank provider is not configured');
  // A project without an opco has no payee: networks that need one refuse (BankRefusedError).
  const payee = (await payeeOfProject(deps.db, d.projectId)) ?? {
    name: merchantName,
    iban: '',
    bic: null,
    subTppId: null,
  };
  return network.createMandate({
    bankId,
    merchantName,
    currency: d.currency,
    maxAmountPerPayment: d.maxAmountPerPayment,
    periodicLimit: { amount: d.periodicAmount, period: d.period },
    payee,
    returnUrl: `${deps.config.publicUrl}/checkout/mandate/${d.authorizationToken}/return`,
    expiresAt: d.authorizationExpiresAt,
  });
}

/** The payer picked a bank: the bank creates the mandate request; returns the bank's page. */
export async function startMandateAuthorization(deps: Deps, token: string, bankId: string): Promise<string> {
  const s = await loadMandatePage(deps, token);
  if (s.expired) throw new AppError(410, MANDATE_PAGE.expired);
  if (s.d.status !== 'pending_authorization')
    throw badRequest(`Recurring payment is in status '${s.d.status}'`);
  const bank = (await deps.providers.bank.listBanks({ purpose: 'mandate' })).find((b) => b.id === bankId);
  if (!deps.providers.bank.mandates || !bank) throw new AppError(503, 'Bank provider is not configured');
  let created: { mandateRef: string; authorizationUrl: string };
  try {
    created = await createBankMandate(deps, s.d, bankId, s.merchantName);
  } catch (err) {
    if (err instanceof BankRefusedError) throw badRequest(err.reason);
    if (err instanceof BankProviderError) throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
    throw err;
  }
  await deps.db
    .update(recurringPayments)
    .set({ mandateRef: created.mandateRef, bankId, bankName: bank.name, updatedAt: deps.clock.now() })
    .where(and(eq(recurringPayments.id, s.d.id), eq(recurringPayments.status, 'pending_authorization')));
  return created.authorizationUrl;
}

/**
 * Networks that are read rather than trusted (Token.io): the mandate's status at the bank, applied
 * like a notification. A failed read changes nothing (the page shows what is known).
 */
export async function syncMandate(deps: Deps, d: DefinitionRow): Promise<boolean> {
  const read = deps.providers.bank.mandates?.readMandate;
  if (!read || !d.mandateRef) return false;
  let code: MandateCode | null;
  try {
    code = await read.call(deps.providers.bank.mandates, d.mandateRef);
  } catch (err) {
    deps.log.warn({ err, definitionId: d.id }, 'mandate status read failed');
    return false;
  }
  if (!code) return false;
  const notification = {
    eventId: newId(),
    refId: d.mandateRef,
    transferId: null,
    providerStatus: code,
    occurredAt: deps.clock.now(),
    reason: null,
    kind: 'mandate' as const,
  };
  return deps.db.transaction((tx) => applyMandateNotification(deps, tx, notification));
}
