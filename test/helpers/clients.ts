/**
 * Fixtures for authenticated callers without going through registration and login: inserts an
 * active client with an account of the given role and signs a token the real auth plugin accepts.
 */
import { randomBytes } from 'node:crypto';
import { accounts, clients } from '../../src/db/schema/index';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import type { Permission, Role } from '../../src/modules/auth/team/permissions.policy';
import type { TestContext } from './app';

export interface TestCaller {
  clientId: string;
  accountId: string;
  role: Role;
  token: string;
  headers: Record<string, string>;
}

export interface TestClientOptions {
  role?: Role;
  /** Issue an API-credential token (client_api_access) instead of a dashboard token. */
  apiToken?: boolean;
  permissions?: Permission[];
  callbackUrl?: string | null;
  webhookUrl?: string | null;
  productionAccess?: boolean;
  clientId?: string;
}

export async function createTestClient(ctx: TestContext, opts: TestClientOptions = {}): Promise<TestCaller> {
  const tag = randomBytes(5).toString('hex');
  let clientId = opts.clientId;
  if (!clientId) {
    const [c] = await ctx.db
      .insert(clients)
      .values({
        companyName: `Acme ${tag}`,
        email: `owner-${tag}@example.com`,
        status: 'active',
        verifiedAt: ctx.clock.now(),
        productionAccessEnabled: opts.productionAccess ?? false,
        callbackUrl:
          opts.callbackUrl === undefined ? 'https://merchant.example.com/return' : opts.callbackUrl,
        webhookUrl: opts.webhookUrl ?? null,
      })
      .returning({ id: clients.id });
    clientId = c!.id;
  }
  const role = opts.role ?? 'owner';
  const [a] = await ctx.db
    .insert(accounts)
    .values({
      clientId,
      email: `${role}-${tag}@example.com`,
      fullName: `Test ${role}`,
      role,
      passwordHash: 'not-a-real-hash',
      emailVerifiedAt: ctx.clock.now(),
    })
    .returning({ id: accounts.id });
  const signed = await signToken(
    ctx.deps.secrets.jwtKey,
    opts.apiToken
      ? {
          sub: clientId,
          type: 'client_api_access',
          actor_type: 'client_api',
          role,
          environment: ctx.config.environment,
          ...(opts.permissions ? { permissions: opts.permissions } : {}),
        }
      : {
          sub: clientId,
          type: 'client_access',
          actor_type: 'client_user',
          role,
          account_id: a!.id,
          environment: ctx.config.environment,
        },
    opts.apiToken ? 3600 : 1800,
    ctx.clock.now(),
  );
  return {
    clientId,
    accountId: a!.id,
    role,
    token: signed.token,
    headers: { authorization: `Bearer ${signed.token}` },
  };
}
