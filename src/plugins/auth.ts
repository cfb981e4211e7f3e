/**
 * Authentication and authorization for every route, driven by the route's `config`:
 *   config.permission      client token required, and the caller must hold this permission
 *   config.dashboardOnly   additionally a dashboard (login) token, not an API credential token
 *   config.auth 'staff'    staff token required (admin API)
 *   config.auth 'public'   no token (login, registration, provider notifications, pages)
 * Runs in onRequest, so a bad token is 401 before any body validation.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { rowsOf } from '../db/client';
import type { Deps } from '../deps';
import { type Permission, permissionsForRole, type Role } from '../modules/auth/permissions';
import { type ClientTokenClaims, type StaffTokenClaims, verifyToken } from '../modules/auth/tokens';
import { forbidden, unauthorized } from '../shared/errors';
import { M } from '../shared/messages';

export interface ClientAuth {
  clientId: string;
  role: Role;
  permissions: ReadonlySet<Permission>;
  actorType: 'client_user' | 'client_api';
  accountId: string | null;
  credentialId: string | null;
  /** Login session (refresh family) of a dashboard token; null for API credential tokens. */
  sessionId: string | null;
  tokenId: string;
  tokenExpiresAt: Date;
  tokenType: ClientTokenClaims['type'];
}

export interface StaffAuth {
  staffId: string;
  tokenId: string;
  tokenExpiresAt: Date;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: 'public' | 'client' | 'staff';
    permission?: Permission;
    dashboardOnly?: boolean;
    /** Action endpoint without a request body (for the OpenAPI completeness test). */
    bodyless?: boolean;
  }
  interface FastifyRequest {
    /** Set on client-authenticated routes. */
    clientAuth: ClientAuth | null;
    /** Set on staff routes. */
    staffAuth: StaffAuth | null;
  }
}

function bearer(request: FastifyRequest): string | null {
  const h = request.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

interface TokenState {
  client_active: boolean | null;
  production_access_enabled: boolean | null;
  account_active: boolean | null;
  credential_active: boolean | null;
  revoked: boolean;
  session_revoked: boolean;
}

/** One indexed round trip: client state, account state, credential state, revocation. */
async function loadTokenState(deps: Deps, c: ClientTokenClaims): Promise<TokenState | undefined> {
  const accountId = c.account_id ?? null;
  const credentialId = c.credential_id ?? null;
  const sessionId = c.sid ?? null;
  const res = await deps.db.execute(sql`
    select c.is_active as client_active,
           c.production_access_enabled,
           (select a.is_active from accounts a where a.id = ${accountId}::uuid and a.client_id = c.id) as account_active,
           ${credentialStateSql(credentialId)} as credential_active,
           exists(select 1 from revoked_tokens r where r.jti = ${c.jti}) as revoked,
           exists(select 1 from refresh_sessions s where s.id = ${sessionId}::uuid and s.revoked_at is not null) as session_revoked
      from clients c where c.id = ${c.sub}::uuid`);
  return rowsOf<TokenState>(res)[0];
}

/** Overridden by the API-credentials feature once its table exists; null = not checked. */
let credentialStateSql: (credentialId: string | null) => ReturnType<typeof sql> = () => sql`null::boolean`;
export function setCredentialStateSql(f: typeof credentialStateSql): void {
  credentialStateSql = f;
}

export async function authenticateClient(deps: Deps, request: FastifyRequest): Promise<ClientAuth> {
  const token = bearer(request);
  if (!token) throw unauthorized(M.couldNotValidate);
  const claims = await verifyToken(deps.secrets.jwtKey, token, deps.clock.now());
  if (!claims || (claims.type !== 'client_access' && claims.type !== 'client_api_access'))
    throw unauthorized(M.couldNotValidate);
  const c = claims as ClientTokenClaims;
  if (c.environment !== deps.config.environment) throw unauthorized(M.couldNotValidate);
  const uuidLike = (v: string | undefined) => v === undefined || /^[0-9a-f-]{36}$/i.test(v);
  if (!uuidLike(c.sub) || !uuidLike(c.account_id) || !uuidLike(c.sid)) {
    throw unauthorized(M.couldNotValidate);
  }
  const state = await loadTokenState(deps, c);
  if (!state) throw unauthorized(M.couldNotValidate);
  if (state.revoked || state.session_revoked) throw unauthorized(M.tokenRevoked);
  if (!state.client_active) throw unauthorized(M.clientNotActive);
  if (c.type === 'client_access' && state.account_active !== true) throw unauthorized(M.accountNotActive);
  if (c.type === 'client_api_access' && state.credential_active === false)
    throw unauthorized(M.invalidApiKey);
  if (deps.config.environment === 'production' && !state.production_access_enabled)
    throw forbidden(M.productionAccessDisabled);
  const permissions = new Set<Permission>(c.permissions ?? permissionsForRole(c.role));
  return {
    clientId: c.sub,
    role: c.role,
    permissions,
    actorType: c.actor_type,
    accountId: c.account_id ?? null,
    credentialId: c.credential_id ?? null,
    sessionId: c.sid ?? null,
    tokenId: c.jti,
    tokenExpiresAt: new Date(c.exp * 1000),
    tokenType: c.type,
  };
}

export async function authenticateStaff(deps: Deps, request: FastifyRequest): Promise<StaffAuth> {
  const token = bearer(request);
  if (!token) throw unauthorized(M.couldNotValidate);
  const claims = await verifyToken(deps.secrets.jwtKey, token, deps.clock.now());
  if (claims?.type !== 'staff_access' || claims.environment !== deps.config.environment) {
    throw unauthorized(M.couldNotValidate);
  }
  const s = claims as StaffTokenClaims;
  const res = await deps.db.execute(sql`
    select s.is_active as active, exists(select 1 from revoked_tokens r where r.jti = ${s.jti}) as revoked
      from staff_accounts s where s.id = ${s.sub}::uuid`);
  const row = rowsOf<{ active: boolean; revoked: boolean }>(res)[0];
  if (!row?.active) throw unauthorized(M.couldNotValidate);
  if (row.revoked) throw unauthorized(M.tokenRevoked);
  return { staffId: s.sub, tokenId: s.jti, tokenExpiresAt: new Date(s.exp * 1000) };
}

export const authPlugin = fp(
  async (app: FastifyInstance, opts: { deps: Deps }) => {
    const { deps } = opts;
    app.decorateRequest('clientAuth', null);
    app.decorateRequest('staffAuth', null);
    app.addHook('onRequest', async (request) => {
      const cfg = request.routeOptions.config ?? {};
      if (cfg.auth === 'staff') {
        request.staffAuth = await authenticateStaff(deps, request);
        return;
      }
      if (cfg.permission === undefined && cfg.auth !== 'client') return;
      const auth = await authenticateClient(deps, request);
      request.clientAuth = auth;
      if (cfg.dashboardOnly && auth.tokenType !== 'client_access') throw forbidden(M.dashboardTokenRequired);
      if (cfg.permission && !auth.permissions.has(cfg.permission)) throw forbidden(M.insufficientPermissions);
    });
  },
  { name: 'auth' },
);

/** The authenticated client of a client route (throws if the route forgot its permission). */
export function clientAuthOf(request: FastifyRequest): ClientAuth {
  if (!request.clientAuth) throw new Error('route has no client authentication configured');
  return request.clientAuth;
}

export function staffAuthOf(request: FastifyRequest): StaffAuth {
  if (!request.staffAuth) throw new Error('route has no staff authentication configured');
  return request.staffAuth;
}
