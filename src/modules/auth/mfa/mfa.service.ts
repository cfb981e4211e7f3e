/** MFA settings (client defaults and the caller's own) and TOTP enrollment / removal. */

import { and, eq, isNull, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { DbOrTx } from '../../../db/client';
import { accounts, clients, totpEnrollments } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import type { ClientAuth } from '../../../plugins/auth';
import { addSeconds } from '../../../shared/clock';
import { decrypt, encrypt, keyedHash } from '../../../shared/crypto';
import { badRequest, notFound } from '../../../shared/errors';
import { randomToken } from '../../../shared/ids';
import { M } from '../../../shared/messages';
import { diffChanges, recordActivity } from '../../activity/activity-writer.service';
import { notify, OWNER_ONLY } from '../../notifications/notify.service';
import {
  consumeSecurityChallenge,
  verifySecurityChallenge,
} from '../security-challenges/security-challenges.service';
import {
  accountMfaSettings,
  assertMfaRules,
  clientMfaSettings,
  effectiveMfa,
  type MfaSettings,
} from './mfa.policy';
import { generateTotpSecret, totpUri, verifyTotp } from './totp.service';

export const TOTP_ENROLLMENT_TTL_SECONDS = 10 * 60;
export const TOTP_ENROLLMENT_MAX_ATTEMPTS = 5;

async function loadCaller(deps: Deps, auth: ClientAuth) {
  const [row] = await deps.db
    .select({ account: accounts, client: clients })
    .from(accounts)
    .innerJoin(clients, eq(clients.id, accounts.clientId))
    .where(and(eq(accounts.id, auth.accountId ?? ''), eq(accounts.clientId, auth.clientId)));
  if (!row) throw notFound(M.accountNotFound);
  return row;
}

export async function getClientDefaults(deps: Deps, clientId: string): Promise<MfaSettings> {
  const [c] = await deps.db.select().from(clients).where(eq(clients.id, clientId));
  if (!c) throw notFound(M.notFound);
  return clientMfaSettings(c);
}

export async function updateClientDefaults(
  deps: Deps,
  clientId: string,
  patch: Partial<MfaSettings>,
): Promise<MfaSettings> {
  const before = await getClientDefaults(deps, clientId);
  const next = { ...before, ...patch };
  assertMfaRules(next, null);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx
      .update(clients)
      .set({
        mfaEnabled: next.mfa_enabled,
        mfaEmailEnabled: next.email_enabled,
        mfaTotpEnabled: next.totp_enabled,
        mfaPreferredMethod: next.preferred_method,
        updatedAt: now,
      })
      .where(eq(clients.id, clientId));
    await recordActivity(tx, {
      clientId,
      action: 'mfa_defaults.updated',
      at: now,
      target: { type: 'client', id: clientId, label: null },
      changes: diffChanges({ ...before }, { ...next }),
    });
    if (before.mfa_enabled && !next.mfa_enabled)
      await mfaDisabledNotice(tx, clientId, now, 'MFA was turned off in the client defaults.');
  });
  return next;
}

type Joined = Awaited<ReturnType<typeof loadCaller>>;

function myMfaView({ account, client }: Joined) {
  const eff = effectiveMfa(client, account);
  return {
    mfa_use_client_default: account.mfaUseClientDefault,
    ...accountMfaSettings(account),
    totp_enrolled: Boolean(account.totpSecretEnc),
    totp_enrolled_at: account.totpEnrolledAt?.toISOString() ?? null,
    effective: {
      source: eff.source,
      mfa_enabled: eff.required,
      methods: eff.methods,
      preferred_method: eff.preferred,
    },
  };
}

export async function getMyMfa(deps: Deps, auth: ClientAuth) {
  return myMfaView(await loadCaller(deps, auth));
}

export async function updateMyMfa(
  deps: Deps,
  auth: ClientAuth,
  patch: Partial<MfaSettings> & { mfa_use_client_default?: boolean },
) {
  const row = await loadCaller(deps, auth);
  const { mfa_use_client_default, ...settings } = patch;
  const next = { ...accountMfaSettings(row.account), ...settings };
  const enrolled = Boolean(row.account.totpSecretEnc);
  // Enabling TOTP needs an enrolled authenticator; a stored flag is kept as it is.
  assertMfaRules(next, settings.totp_enabled === true ? enrolled : null);
  const now = deps.clock.now();
  const useDefault = mfa_use_client_default ?? row.account.mfaUseClientDefault;
  await deps.db.transaction(async (tx) => {
    await tx
      .update(accounts)
      .set({
        mfaUseClientDefault: useDefault,
        mfaEnabled: next.mfa_enabled,
        mfaEmailEnabled: next.email_enabled,
        mfaTotpEnabled: next.totp_enabled,
        mfaPreferredMethod: next.preferred_method,
        updatedAt: now,
      })
      .where(eq(accounts.id, row.account.id));
    const before = accountMfaSettings(row.account);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'mfa.updated',
      at: now,
      target: { type: 'account', id: row.account.id, label: row.account.email },
      changes: diffChanges(
        { ...before, mfa_use_client_default: row.account.mfaUseClientDefault },
        { ...next, mfa_use_client_default: useDefault },
      ),
    });
    if (before.mfa_enabled && !next.mfa_enabled)
      await mfaDisabledNotice(tx, auth.clientId, now, `MFA was turned off for ${row.account.email}.`);
  });
  return getMyMfa(deps, auth);
}

export async function startTotpEnrollment(deps: Deps, auth: ClientAuth) {
  const { account } = await loadCaller(deps, auth);
  if (account.totpSecretEnc) throw badRequest(M.totpAlreadyEnrolled);
  const now = deps.clock.now();
  const secret = generateTotpSecret();
  const token = randomToken(32);
  const expiresAt = addSeconds(now, TOTP_ENROLLMENT_TTL_SECONDS);
  await deps.db.transaction(async (tx) => {
    await tx.insert(totpEnrollments).values({
      clientId: account.clientId,
      accountId: account.id,
      tokenHash: keyedHash(deps.secrets.hashKey, token),
      secretEnc: encrypt(deps.secrets.encryptionKey, secret),
      expiresAt,
      createdAt: now,
    });
    await recordActivity(tx, {
      clientId: account.clientId,
      action: 'mfa.totp_enrollment_started',
      at: now,
      target: { type: 'account', id: account.id, label: account.email },
      changes: { totp_secret: { from: null, to: 'pending' } },
    });
  });
  return {
    secret,
    otpauth_uri: totpUri(secret, account.email),
    enrollment_token: token,
    expires_at: expiresAt.toISOString(),
  };
}

export async function confirmTotpEnrollment(
  deps: Deps,
  auth: ClientAuth,
  input: { enrollment_token: string; otp_code: string },
) {
  const { account } = await loadCaller(deps, auth);
  const now = deps.clock.now();
  const [en] = await deps.db
    .select()
    .from(totpEnrollments)
    .where(eq(totpEnrollments.tokenHash, keyedHash(deps.secrets.hashKey, input.enrollment_token)));
  if (
    !en ||
    en.accountId !== account.id ||
    en.consumedAt ||
    en.expiresAt <= now ||
    en.attempts >= TOTP_ENROLLMENT_MAX_ATTEMPTS ||
    account.totpSecretEnc
  ) {
    throw badRequest(M.totpEnrollmentInvalid);
  }
  const secret = decrypt(deps.secrets.encryptionKey, en.secretEnc);
  const step = verifyTotp(secret, input.otp_code.trim(), now);
  if (step === null) {
    await deps.db
      .update(totpEnrollments)
      .set({ attempts: sql`${totpEnrollments.attempts} + 1` })
      .where(eq(totpEnrollments.id, en.id));
    throw badRequest(M.invalidAuthenticatorCode);
  }
  await deps.db.transaction(async (tx) => {
    const used = await tx
      .update(totpEnrollments)
      .set({ consumedAt: now })
      .where(and(eq(totpEnrollments.id, en.id), isNull(totpEnrollments.consumedAt)))
      .returning({ id: totpEnrollments.id });
    if (used.length !== 1) throw badRequest(M.totpEnrollmentInvalid);
    const set = await tx
      .update(accounts)
      .set({
        totpSecretEnc: encrypt(deps.secrets.encryptionKey, secret),
        totpEnrolledAt: now,
        totpLastStep: step,
        mfaTotpEnabled: true,
        updatedAt: now,
      })
      .where(and(eq(accounts.id, account.id), isNull(accounts.totpSecretEnc)))
      .returning({ id: accounts.id });
    if (set.length !== 1) throw badRequest(M.totpEnrollmentInvalid);
    await recordActivity(tx, {
      clientId: account.clientId,
      action: 'mfa.totp_enrolled',
      at: now,
      target: { type: 'account', id: account.id, label: account.email },
      changes: {
        totp_enabled: { from: account.mfaTotpEnabled, to: true },
        totp_secret: { from: null, to: 'set' },
      },
    });
  });
  return getMyMfa(deps, auth);
}

/** Removes the authenticator (DISABLE_TOTP security challenge). Email stays available as a method. */
export async function disableTotp(deps: Deps, auth: ClientAuth, request: FastifyRequest) {
  const { account } = await loadCaller(deps, auth);
  if (!account.totpSecretEnc) throw badRequest(M.totpNotEnabled);
  const challengeId = await verifySecurityChallenge(deps, request, auth, 'DISABLE_TOTP');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await consumeSecurityChallenge(tx, challengeId, now);
    await tx
      .update(accounts)
      .set({
        totpSecretEnc: null,
        totpEnrolledAt: null,
        totpLastStep: null,
        mfaTotpEnabled: false,
        mfaPreferredMethod: 'email',
        // Keep the rule "MFA on needs a method": email takes over.
        mfaEmailEnabled: sql`${accounts.mfaEmailEnabled} or ${accounts.mfaEnabled}`,
        updatedAt: now,
      })
      .where(eq(accounts.id, account.id));
    await recordActivity(tx, {
      clientId: account.clientId,
      action: 'mfa.totp_disabled',
      at: now,
      target: { type: 'account', id: account.id, label: account.email },
      changes: {
        totp_enabled: { from: account.mfaTotpEnabled, to: false },
        totp_secret: { from: 'set', to: null },
      },
    });
    await mfaDisabledNotice(
      tx,
      account.clientId,
      now,
      `The authenticator app of ${account.email} was removed.`,
    );
  });
  return getMyMfa(deps, auth);
}

async function mfaDisabledNotice(tx: DbOrTx, clientId: string, now: Date, body: string) {
  await notify(tx, {
    clientId,
    category: 'security',
    severity: 'warning',
    title: 'MFA disabled',
    body,
    item: { type: 'client', id: clientId },
    audience: { roles: OWNER_ONLY },
    at: now,
  });
}
