import { and, eq } from 'drizzle-orm';
import { accounts, clients } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import type { ClientAuth } from '../../../plugins/auth';
import { notFound } from '../../../shared/errors';
import { M } from '../../../shared/messages';

export async function describeCaller(deps: Deps, auth: ClientAuth) {
  const [client] = await deps.db.select().from(clients).where(eq(clients.id, auth.clientId));
  if (!client) throw notFound(M.notFound);
  const [account] = auth.accountId
    ? await deps.db
        .select()
        .from(accounts)
        .where(and(eq(accounts.id, auth.accountId), eq(accounts.clientId, auth.clientId)))
    : [];
  return {
    client: {
      client_id: client.id,
      company_name: client.companyName,
      email: client.email,
      status: client.status,
      is_active: client.isActive,
      production_access_enabled: client.productionAccessEnabled,
      created_at: client.createdAt.toISOString(),
    },
    account: account
      ? {
          account_id: account.id,
          email: account.email,
          full_name: account.fullName,
          role: account.role,
          is_active: account.isActive,
          mfa_use_client_default: account.mfaUseClientDefault,
          totp_enrolled: Boolean(account.totpSecretEnc),
          last_login_at: account.lastLoginAt?.toISOString() ?? null,
          created_at: account.createdAt.toISOString(),
        }
      : null,
    role: auth.role,
    actor_type: auth.actorType,
    environment: deps.config.environment,
    payment_currencies: deps.config.paymentCurrencies ? [...deps.config.paymentCurrencies] : null,
    permissions: [...auth.permissions].sort(),
    token_expires_at: auth.tokenExpiresAt.toISOString(),
  };
}
