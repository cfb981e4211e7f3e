/**
 * The hosted mandate authorization page `/checkout/mandate/{token}`: the payer picks a bank, the
 * bank's own page asks to authorize, reject or let it time out, and the bank's notification (through
 * the signed route) moves the recurring payment. Afterwards the payer returns to `redirect_url` or the
 * client's callback URL with `definition_id` appended.
 */
import { and, eq } from 'drizzle-orm';
import { clients, recurringPayments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { AppError, badRequest } from '../../shared/errors';
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
  return { d, merchantName: c?.name ?? 'Merchant', callbackUrl: c?.callbackUrl ?? null, expired };
}

/** Where the payer goes back to: redirect_url or the callback URL, with definition_id appended. */
export function mandateReturnUrl(s: MandatePageState): string | null {
  const base = s.d.redirectUrl ?? s.callbackUrl;
  if (!base) return null;
  const u = new URL(base);
  if (!u.searchParams.has('definition_id')) u.searchParams.set('definition_id', s.d.id);
  return u.toString();
}

/** The payer picked a bank: the bank creates the mandate request; returns the bank's page. */
export async function startMandateAuthorization(deps: Deps, token: string, bankId: string): Promise<string> {
  const s = await loadMandatePage(deps, token);
  if (s.expired) throw new AppError(410, MANDATE_PAGE.expired);
  if (s.d.status !== 'pending_authorization')
    throw badRequest(`Recurring payment is in status '${s.d.status}'`);
  const network = deps.providers.bank.mandates;
  const bank = deps.providers.bank.listBanks().find((b) => b.id === bankId);
  if (!network || !bank) throw new AppError(503, 'Bank provider is not configured');
  const { mandateRef, authorizationUrl } = await network.createMandate({
    bankId,
    merchantName: s.merchantName,
    currency: s.d.currency,
    maxAmountPerPayment: s.d.maxAmountPerPayment,
    periodicLimit: { amount: s.d.periodicAmount, period: s.d.period },
    returnUrl: `${deps.config.publicUrl}/checkout/mandate/${token}/return`,
    expiresAt: s.d.authorizationExpiresAt,
  });
  await deps.db
    .update(recurringPayments)
    .set({ mandateRef, bankId, bankName: bank.name, updatedAt: deps.clock.now() })
    .where(and(eq(recurringPayments.id, s.d.id), eq(recurringPayments.status, 'pending_authorization')));
  return authorizationUrl;
}
