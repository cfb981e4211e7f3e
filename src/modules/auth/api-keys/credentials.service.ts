/**
 * API credentials: create (a role or a custom permission set), list, rotate the secret, disable,
 * and the token exchange (POST /auth/api-token) with its per-key lockout.
 *
 * The API key is a public identifier (`pk_<environment>_<random>`); the secret
 * (`sk_<environment>_<random>`) is returned once and stored only as keyedHash(hashKey, secret).
 */

import { randomBytes } from 'node:crypto';
import type { Environment } from '../../../config';
import type { DbOrTx } from '../../../db/client';
import type { Deps } from '../../../deps';
import { addSeconds } from '../../../shared/clock';
import { keyedHash, safeEqual } from '../../../shared/crypto';
import {
  type AppError,
  badRequest,
  forbidden,
  invalidField,
  notFound,
  tooManyRequests,
  unauthorized,
} from '../../../shared/errors';
import { randomToken } from '../../../shared/ids';
import { M } from '../../../shared/messages';
import { recordActivity } from '../../activity/activity-writer.service';
import { notify, OWNER_ONLY } from '../../notifications/notify.service';
import { consumeSecurityChallenge } from '../security-challenges/security-challenges.service';
import { signToken } from '../sessions/tokens.service';
import { isPermission, type Permission, type Role } from '../team/permissions.policy';
import {
  type ApiCredentialRow,
  clearLockout,
  deleteStaleLockouts,
  findCredential,
  findCredentialByKey,
  findLockout,
  insertCredential,
  listCredentials,
  lockApiKey,
  saveLockout,
  updateCredential,
} from './credentials.repo';
import {
  API_KEY_FAILURE_WINDOW_SECONDS,
  API_KEY_MAX_FAILURES,
  afterFailure,
  lockedForSeconds,
} from './lockout.policy';

export interface CredentialView {
  credential_id: string;
  api_key: string;
  label: string;
  role: Role;
  permissions: Permission[] | null;
  disabled: boolean;
  disabled_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedCredential extends CredentialView {
  api_secret: string;
}

export interface CreateCredentialInput {
  label: string;
  role?: Role;
  permissions?: string[];
}

export interface ApiTokenResponse {
  access_token: string;
  token_type: 'bearer';
  client_id: string;
  role: Role;
  environment: Environment;
  expires_in: number;
}

/** A custom permission set is stored and reported as the least-privileged role plus its explicit list. */
export const CUSTOM_SET_ROLE: Role = 'developer';

export function toCredentialView(row: ApiCredentialRow): CredentialView {
  return {
    credential_id: row.id,
    api_key: row.apiKey,
    label: row.label,
    role: row.role as Role,
    permissions: (row.permissions as Permission[] | null) ?? null,
    disabled: row.disabledAt !== null,
    disabled_at: row.disabledAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

const newApiKey = (deps: Deps) => `pk_${deps.config.environment}_${randomBytes(16).toString('hex')}`;
const newApiSecret = (deps: Deps) => `sk_${deps.config.environment}_${randomToken(32)}`;
const hashOf = (deps: Deps, value: string) => keyedHash(deps.secrets.hashKey, value);

function checkCreateInput(input: CreateCredentialInput): { role: Role; permissions: Permission[] | null } {
  if (input.label.trim() === '') throw invalidField(['body', 'label'], 'Label must not be blank');
  const hasRole = input.role !== undefined;
  const hasPermissions = input.permissions !== undefined;
  if (hasRole === hasPermissions) {
    throw invalidField(
      ['body', hasRole ? 'permissions' : 'role'],
      'Provide exactly one of role or permissions',
      'value_error',
    );
  }
  if (input.role !== undefined) return { role: input.role, permissions: null };
  const permissions = input.permissions!;
  const unknown = permissions.findIndex((p) => !isPermission(p));
  if (unknown >= 0) {
    throw invalidField(['body', 'permissions', unknown], `Unknown permission '${permissions[unknown]}'`);
  }
  return { role: CUSTOM_SET_ROLE, permissions: [...new Set(permissions)] as Permission[] };
}

export async function createApiCredential(
  deps: Deps,
  caller: { clientId: string; accountId: string | null },
  input: CreateCredentialInput,
): Promise<CreatedCredential> {
  const { role, permissions } = checkCreateInput(input);
  const secret = newApiSecret(deps);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const created = await insertCredential(tx, {
      clientId: caller.clientId,
      label: input.label.trim(),
      apiKey: newApiKey(deps),
      secretHash: hashOf(deps, secret),
      role,
      permissions,
      createdByAccountId: caller.accountId,
      tokensValidFrom: now,
      createdAt: now,
      updatedAt: now,
    });
    await recordActivity(tx, {
      clientId: caller.clientId,
      action: 'api_credential.created',
      at: now,
      target: { type: 'api_credential', id: created.id, label: created.label },
      changes: {
        role: { from: null, to: role },
        permissions: { from: null, to: permissions },
        api_secret: { from: null, to: 'set' },
      },
    });
    await securityNotice(tx, caller.clientId, now, created, 'API credential created', 'was created');
    return created;
  });
  return { ...toCredentialView(row), api_secret: secret };
}

export async function listApiCredentials(deps: Deps, clientId: string): Promise<CredentialView[]> {
  return (await listCredentials(deps.db, clientId)).map(toCredentialView);
}

/**
 * New secret, effective at once: the old secret no longer exchanges, and every token issued before
 * (even in the same second) is refused by the auth guard: the credential's generation moves on.
 */
export async function resetApiCredentialSecret(
  deps: Deps,
  clientId: string,
  credentialId: string,
  challengeId: string,
): Promise<{ credential_id: string; api_key: string; api_secret: string }> {
  const secret = newApiSecret(deps);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const current = await findCredential(tx, clientId, credentialId, true);
    if (!current) throw notFound(M.apiCredentialNotFound);
    if (current.disabledAt) throw badRequest(M.apiCredentialDisabled);
    await consumeSecurityChallenge(tx, challengeId, now);
    const updated = await updateCredential(tx, current.id, {
      secretHash: hashOf(deps, secret),
      secretRotatedAt: now,
      tokensValidFrom: now,
      updatedAt: now,
      bumpGeneration: true,
    });
    await recordActivity(tx, {
      clientId,
      action: 'api_credential.secret_reset',
      at: now,
      target: { type: 'api_credential', id: current.id, label: current.label },
      changes: { api_secret: { from: 'old', to: 'new' } },
    });
    await securityNotice(tx, clientId, now, current, 'API credential secret reset', 'had its secret reset');
    return updated;
  });
  return { credential_id: row.id, api_key: row.apiKey, api_secret: secret };
}

async function securityNotice(
  tx: DbOrTx,
  clientId: string,
  now: Date,
  cred: { id: string; label: string },
  title: string,
  verb: string,
) {
  await notify(tx, {
    clientId,
    category: 'security',
    severity: 'warning',
    title,
    body: `API credential "${cred.label}" ${verb}.`,
    item: { type: 'api_credential', id: cred.id },
    audience: { roles: OWNER_ONLY },
    at: now,
  });
}

/** Disables for good (idempotent): no more exchanges, and its issued tokens are refused at once. */
export async function disableApiCredential(
  deps: Deps,
  clientId: string,
  credentialId: string,
): Promise<CredentialView> {
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const current = await findCredential(tx, clientId, credentialId, true);
    if (!current) throw notFound(M.apiCredentialNotFound);
    if (current.disabledAt) return current;
    const updated = await updateCredential(tx, current.id, {
      disabledAt: now,
      updatedAt: now,
      bumpGeneration: true,
    });
    await recordActivity(tx, {
      clientId,
      action: 'api_credential.disabled',
      at: now,
      target: { type: 'api_credential', id: current.id, label: current.label },
      changes: { disabled: { from: false, to: true } },
    });
    return updated;
  });
  return toCredentialView(row);
}

// Compared against when the key does not exist, so timing does not tell existing keys apart.
const DUMMY_HASH = '0'.repeat(64);

type ExchangeOutcome = { ok: true; credential: ApiCredentialRow } | { ok: false; error: AppError };

/**
 * POST /auth/api-token. Per API key, in one transaction under an advisory lock: refuse while
 * locked (429, even with the right secret), check the secret, count a failure (committed, then
 * 401) or clear the counter and stamp last_used_at. The token is signed after the commit.
 */
export async function exchangeApiToken(
  deps: Deps,
  apiKey: string,
  apiSecret: string,
): Promise<ApiTokenResponse> {
  const keyHash = hashOf(deps, apiKey);
  const now = deps.clock.now();
  const outcome = await deps.db.transaction(async (tx): Promise<ExchangeOutcome> => {
    await lockApiKey(tx, keyHash);
    const lockout = await findLockout(tx, keyHash);
    const wait = lockedForSeconds(lockout, now);
    if (wait > 0) {
      return {
        ok: false,
        error: tooManyRequests(M.tooManyAttempts(wait), wait, API_KEY_MAX_FAILURES, lockout!.lockedUntil!),
      };
    }
    const found = await findCredentialByKey(tx, apiKey);
    const secretMatches = safeEqual(found?.credential.secretHash ?? DUMMY_HASH, hashOf(deps, apiSecret));
    if (!found || !secretMatches || found.credential.disabledAt) {
      // The failure that reaches the limit still answers 401; the lock applies from the next attempt.
      await saveLockout(tx, afterFailure(keyHash, lockout, now));
      if (found)
        await recordActivity(tx, {
          clientId: found.credential.clientId,
          action: 'api_token.exchange_failed',
          outcome: 'failure',
          at: now,
          actor: { type: 'client_api', accountId: null, credentialId: found.credential.id },
          target: { type: 'api_credential', id: found.credential.id, label: found.credential.label },
          metadata: { reason: found.credential.disabledAt ? 'credential disabled' : 'wrong secret' },
        });
      return { ok: false, error: unauthorized(M.invalidApiKey) };
    }
    if (lockout) await clearLockout(tx, keyHash);
    if (!found.clientActive) return { ok: false, error: unauthorized(M.clientNotActive) };
    if (deps.config.environment === 'production' && !found.productionAccessEnabled) {
      return { ok: false, error: forbidden(M.productionAccessDisabled) };
    }
    await updateCredential(tx, found.credential.id, { lastUsedAt: now });
    return { ok: true, credential: found.credential };
  });
  if (!outcome.ok) throw outcome.error;

  const cred = outcome.credential;
  const role = cred.role as Role;
  const ttl = deps.config.apiTokenTtlSeconds;
  const signed = await signToken(
    deps.secrets.jwtKey,
    {
      sub: cred.clientId,
      type: 'client_api_access',
      actor_type: 'client_api',
      role,
      credential_id: cred.id,
      gen: cred.tokenGeneration,
      ...(cred.permissions ? { permissions: cred.permissions as Permission[] } : {}),
      environment: deps.config.environment,
    },
    ttl,
    now,
  );
  return {
    access_token: signed.token,
    token_type: 'bearer',
    client_id: cred.clientId,
    role,
    environment: deps.config.environment,
    expires_in: ttl,
  };
}

/** Housekeeping: forget failure counters with no lock in force and no failure in the window. */
export async function sweepApiKeyLockouts(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  return deleteStaleLockouts(deps.db, now, addSeconds(now, -API_KEY_FAILURE_WINDOW_SECONDS));
}
