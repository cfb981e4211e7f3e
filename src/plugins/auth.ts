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
import {
  type ClientTokenClaims,
  type StaffTokenClaims,
  verifyTokenWithReason,
} from '../modules/auth/sessions/tokens.service';
import {
  PERMISSION_MATRIX,
  type Permission,
  permissionsForRole,
  type Role,
} from '../modules/auth/team/permissions.policy';
import type { ActionViewer } from '../platform/actions';
import { forbidden, insufficientScope, invalidToken } from '../shared/errors';
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

/** The caller as `allowed_actions` sees it: the token's permissions and the deployment. */
export function actionViewer(deps: Pick<Deps, 'config'>, auth: ClientAuth): ActionViewer<Permission> {
  return { permissions: auth.permissions, sandbox: deps.config.environment === 'sandbox' };
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
    /** A client route's hot read, done in the token check's statement (see AuthRead). */
    authRead?: AuthRead;
  }
  interface FastifyRequest {
    /** Set on client-authenticated routes. */
    clientAuth: ClientAuth | null;
    /** Set on staff routes. */
    staffAuth: StaffAuth | null;
    /** The row of the route's AuthRead (found or not), or null when it was not read with the token state. */
    authRow: AuthRow | null;
  }
}

function bearer(request: FastifyRequest): string | null {
  const h = request.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

/** Our API key (`pk_<env>_…`) and secret (`sk_<env>_…`) prefixes. */
const CREDENTIAL_PREFIX = /^(pk|sk)_(sandbox|production)_/;

/**
 * Whether the caller sent an API key or secret where an access token belongs: as the bearer token,
 * or as HTTP Basic's user (`curl -u sk_…:`, another provider's habit). Only the prefix is looked at;
 * the value is never echoed or logged.
 */
function credentialSentAsToken(request: FastifyRequest, token: string | null): boolean {
  if (token) return CREDENTIAL_PREFIX.test(token);
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
  return m ? CREDENTIAL_PREFIX.test(Buffer.from(m[1]!, 'base64').toString('latin1')) : false;
}

/**
 * A client route's hot read folded into the token check's statement: one round trip instead of
 * two. `sql` selects at most one row, with $1 the token's (verified) client id and $8 the value of
 * `key(request)` (from the path, before validation: return null for anything malformed, and the
 * token state is read alone). The row is left on `request.authRow`; the handler only runs once the
 * token check passed, so it never sees a row a refused token read.
 */
export interface AuthRead {
  name: string;
  sql: string;
  key(request: FastifyRequest): string | null;
}

/** The AuthRead's row (its columns, alongside the token state's) and whether there was one. */
export interface AuthRow {
  found: boolean;
  row: Record<string, unknown>;
}

interface TokenState {
  client_active: boolean | null;
  production_access_enabled: boolean | null;
  account_active: boolean | null;
  /** The account's current role: a role change applies to live tokens at once. */
  account_role: Role | null;
  credential_active: boolean | null;
  revoked: boolean;
  session_revoked: boolean;
}

// A credential token is live while its credential exists, is not disabled and carries the
// credential's current generation (bumped by every rotation, so a token minted in the same second
// as the rotation dies too); tokens from before generations (no gen claim) also need iat at or
// after the last rotation's second. A dashboard token dies with its refresh session.
const TOKEN_STATE = `select c.is_active as client_active,
       c.production_access_enabled,
       a.is_active as account_active,
       a.role as account_role,
       (select k.disabled_at is null and k.token_generation = $4::integer
               and to_timestamp($5::double precision) >= date_trunc('second', k.tokens_valid_from)
          from api_credentials k where k.id = $3::uuid and k.client_id = c.id) as credential_active,
       exists(select 1 from revoked_tokens r where r.jti = $6) as revoked,
       exists(select 1 from refresh_sessions s where s.id = $7::uuid and s.revoked_at is not null) as session_revoked
  from clients c
  left join accounts a on a.id = $2::uuid and a.client_id = c.id
 where c.id = $1::uuid`;

/**
 * One indexed round trip (a named prepared statement on PostgreSQL): client state, account
 * state, credential state, revocation. Read on every request, never cached, so revocation takes
 * effect at once on every node.
 */
async function loadTokenState(
  deps: Deps,
  c: ClientTokenClaims,
  read: { spec: AuthRead; key: string } | null,
): Promise<{ state: TokenState | undefined; row: AuthRow | null }> {
  const params: unknown[] = [
    c.sub,
    c.account_id ?? null,
    c.credential_id ?? null,
    typeof c.gen === 'number' ? c.gen : 0,
    c.iat,
    c.jti,
    c.sid ?? null,
  ];
  if (!read) {
    const rows = await deps.database.query<TokenState>('auth_token_state', TOKEN_STATE, params);
    return { state: rows[0], row: null };
  }
  params.push(read.key);
  const rows = await deps.database.query<TokenState & Record<string, unknown>>(
    `auth_token_state+${read.spec.name}`,
    withRead(read.spec),
    params,
  );
  const r = rows[0];
  return { state: r, row: r ? { found: r.auth_read_found__ === true, row: r } : null };
}

const readTexts = new WeakMap<AuthRead, string>();

/** TOKEN_STATE with the route's read beside it (left join: no row still answers the token state). */
function withRead(spec: AuthRead): string {
  let text = readTexts.get(spec);
  if (!text) {
    text = `select st.*, r.* from (${TOKEN_STATE}) st
  left join lateral (select true as auth_read_found__, x.* from (${spec.sql}) x) r on true`;
    readTexts.set(spec, text);
  }
  return text;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An AuthRead key: the path parameter `name` when it is a UUID (else validation answers 422). */
export function uuidPathKey(name: string): AuthRead['key'] {
  return (request) => {
    const v = (request.params as Record<string, string | undefined>)[name];
    return v && UUID_RE.test(v) ? v : null;
  };
}

export async function authenticateClient(
  deps: Deps,
  request: FastifyRequest,
  readSpec?: AuthRead,
): Promise<ClientAuth> {
  const token = bearer(request);
  if (credentialSentAsToken(request, token)) throw invalidToken(M.couldNotValidate, 'api_credential');
  if (!token)
    throw invalidToken(M.couldNotValidate, request.headers.authorization?.trim() ? 'not_bearer' : 'missing');
  const { claims, expired } = await verifyTokenWithReason(deps.secrets.jwtKey, token, deps.clock.now());
  if (!claims || (claims.type !== 'client_access' && claims.type !== 'client_api_access'))
    throw invalidToken(M.couldNotValidate, expired ? 'expired' : 'invalid');
  const c = claims as ClientTokenClaims;
  if (c.environment !== deps.config.environment) throw invalidToken(M.couldNotValidate, 'invalid');
  if (
    !UUID_RE.test(c.sub) ||
    (c.account_id && !UUID_RE.test(c.account_id)) ||
    (c.credential_id && !UUID_RE.test(c.credential_id)) ||
    (c.sid && !UUID_RE.test(c.sid)) ||
    (c.gen !== undefined && !(Number.isInteger(c.gen) && c.gen >= 0 && c.gen <= 2147483647)) ||
    typeof c.iat !== 'number'
  ) {
    throw invalidToken(M.couldNotValidate, 'invalid');
  }
  const key = readSpec?.key(request) ?? null;
  const { state, row } = await loadTokenState(deps, c, readSpec && key ? { spec: readSpec, key } : null);
  if (!state) throw invalidToken(M.couldNotValidate, 'invalid');
  if (state.revoked || state.session_revoked) throw invalidToken(M.tokenRevoked, 'revoked');
  if (!state.client_active) throw invalidToken(M.clientNotActive, 'inactive');
  if (c.type === 'client_access' && state.account_active !== true)
    throw invalidToken(M.accountNotActive, 'inactive');
  // Tokens minted by the token exchange name their credential; a disabled, rotated or deleted one is refused.
  if (c.type === 'client_api_access' && c.credential_id && state.credential_active !== true)
    throw invalidToken(M.invalidApiKey, 'inactive');
  if (deps.config.environment === 'production' && !state.production_access_enabled)
    throw forbidden(M.productionAccessDisabled);
  request.authRow = row;
  const role = c.type === 'client_access' && state.account_role ? state.account_role : c.role;
  const permissions = new Set<Permission>(c.permissions ?? permissionsForRole(role));
  return {
    clientId: c.sub,
    role,
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
  if (!token) throw invalidToken(M.couldNotValidate, 'missing');
  const { claims, expired } = await verifyTokenWithReason(deps.secrets.jwtKey, token, deps.clock.now());
  if (claims?.type !== 'staff_access' || claims.environment !== deps.config.environment) {
    throw invalidToken(M.couldNotValidate, expired ? 'expired' : 'invalid');
  }
  const s = claims as StaffTokenClaims;
  const res = await deps.db.execute(sql`
    select s.is_active as active, exists(select 1 from revoked_tokens r where r.jti = ${s.jti}) as revoked
      from staff_accounts s where s.id = ${s.sub}::uuid`);
  const row = rowsOf<{ active: boolean; revoked: boolean }>(res)[0];
  if (!row?.active) throw invalidToken(M.couldNotValidate, 'invalid');
  if (row.revoked) throw invalidToken(M.tokenRevoked, 'revoked');
  return { staffId: s.sub, tokenId: s.jti, tokenExpiresAt: new Date(s.exp * 1000) };
}

export const authPlugin = fp(
  async (app: FastifyInstance, opts: { deps: Deps }) => {
    const { deps } = opts;
    app.decorateRequest('clientAuth', null);
    app.decorateRequest('staffAuth', null);
    app.decorateRequest('authRow', null);
    app.addHook('onRequest', async (request) => {
      const cfg = request.routeOptions.config ?? {};
      if (cfg.auth === 'staff') {
        request.staffAuth = await authenticateStaff(deps, request);
        return;
      }
      if (cfg.permission === undefined && cfg.auth !== 'client') return;
      const auth = await authenticateClient(deps, request, cfg.authRead);
      request.clientAuth = auth;
      if (cfg.dashboardOnly && auth.tokenType !== 'client_access') throw forbidden(M.dashboardTokenRequired);
      if (cfg.permission && !auth.permissions.has(cfg.permission))
        throw insufficientScope(
          M.insufficientPermissions,
          cfg.permission,
          PERMISSION_MATRIX[cfg.permission][0],
        );
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
