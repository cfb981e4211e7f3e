/**
 * Team accounts: the owner adds, lists, updates and deletes the client's dashboard users.
 *
 * A new member receives a generated temporary password by email (argon2id-hashed at rest; they
 * change it with POST /auth/team/accounts/me/change-password). The account is committed before
 * the email is sent (never a network call inside a transaction); if the mail server refuses the
 * message the account is deleted again and the caller gets 502, so nothing remains.
 *
 * Rules: at least one active owner must remain (demote, deactivate, delete), and nobody deletes
 * the account they are logged in with. Team changes of one client are serialized by a row lock
 * on the client so these rules hold under concurrency.
 */
import { eq } from 'drizzle-orm';
import { clients } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { MailDeliveryError } from '../../../providers/mail/port';
import { AppError, badRequest, invalidField, notFound } from '../../../shared/errors';
import { randomToken } from '../../../shared/ids';
import { M } from '../../../shared/messages';
import { diffChanges, recordActivity } from '../../activity/activity-writer.service';
import { notify, OWNER_ONLY } from '../../notifications/notify.service';
import { hashPassword } from '../passwords/hashing.service';
import { consumeSecurityChallenge } from '../security-challenges/security-challenges.service';
import type { Role } from './permissions.policy';
import {
  type AccountRow,
  countOtherActiveOwners,
  deleteAccount,
  emailTaken,
  findAccount,
  insertAccount,
  listAccounts,
  lockClientTeam,
  updateAccount,
} from './team.repo';

export interface AccountView {
  account_id: string;
  email: string;
  full_name: string;
  role: Role;
  is_active: boolean;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

export interface Caller {
  clientId: string;
  accountId: string | null;
}

export function toAccountView(row: AccountRow): AccountView {
  return {
    account_id: row.id,
    email: row.email,
    full_name: row.fullName,
    role: row.role as Role,
    is_active: row.isActive,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    last_login_at: row.lastLoginAt?.toISOString() ?? null,
  };
}

export async function listTeamAccounts(deps: Deps, clientId: string): Promise<AccountView[]> {
  return (await listAccounts(deps.db, clientId)).map(toAccountView);
}

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === '23505') return true;
  }
  return false;
}

export interface CreateAccountInput {
  email: string;
  full_name: string;
  role: Role;
}

export async function createTeamAccount(
  deps: Deps,
  caller: Caller,
  input: CreateAccountInput,
  challengeId: string,
): Promise<AccountView> {
  if (input.full_name.trim() === '') throw invalidField(['body', 'full_name'], 'Full name must not be blank');
  const email = input.email.trim().toLowerCase();
  if (await emailTaken(deps.db, email)) throw badRequest(M.accountEmailExists);
  const temporaryPassword = randomToken(12);
  const passwordHash = await hashPassword(temporaryPassword);
  const now = deps.clock.now();

  const { account, companyName } = await deps.db
    .transaction(async (tx) => {
      await lockClientTeam(tx, caller.clientId);
      await consumeSecurityChallenge(tx, challengeId, now);
      const [client] = await tx
        .select({ companyName: clients.companyName })
        .from(clients)
        .where(eq(clients.id, caller.clientId));
      const row = await insertAccount(tx, {
        clientId: caller.clientId,
        email,
        fullName: input.full_name.trim(),
        role: input.role,
        passwordHash,
        // Only the holder of this mailbox learns the password, so signing in proves the address.
        emailVerifiedAt: now,
        createdAt: now,
        updatedAt: now,
      });
      await recordActivity(tx, {
        clientId: caller.clientId,
        action: 'team_member.added',
        at: now,
        target: { type: 'team_member', id: row.id, label: row.email },
        changes: { role: { from: null, to: row.role }, temporary_password: { from: null, to: 'set' } },
      });
      await notify(tx, {
        clientId: caller.clientId,
        category: 'security',
        severity: 'warning',
        title: 'Team member added',
        body: `${row.email} was added to the team as ${row.role}.`,
        item: { type: 'team_member', id: row.id },
        audience: { roles: OWNER_ONLY },
        at: now,
      });
      return { account: row, companyName: client?.companyName ?? '' };
    })
    .catch((err) => {
      throw isUniqueViolation(err) ? badRequest(M.accountEmailExists) : err;
    });

  try {
    await deps.mailer.send({
      to: email,
      subject: `You have been added to ${companyName} on Payments Platform`,
      text: [
        `Hello ${account.fullName},`,
        '',
        `You have been added to the ${companyName} team as ${account.role}.`,
        `Sign in at ${deps.config.publicUrl} with:`,
        `  Email: ${email}`,
        `  Temporary password: ${temporaryPassword}`,
        '',
        'Change this password after your first sign-in.',
      ].join('\n'),
    });
  } catch (err) {
    // Compensate: the member never got their credentials, so the account must not exist.
    await deps.db.transaction(async (tx) => {
      await deleteAccount(tx, account.id);
      await recordActivity(tx, {
        clientId: caller.clientId,
        action: 'team_member.removed',
        at: deps.clock.now(),
        target: { type: 'team_member', id: account.id, label: account.email },
        metadata: { reason: 'welcome email could not be delivered' },
      });
    });
    if (err instanceof MailDeliveryError) throw new AppError(502, M.emailDeliveryFailed);
    throw err;
  }
  return toAccountView(account);
}

export interface UpdateAccountInput {
  role?: Role;
  full_name?: string;
  is_active?: boolean;
}

export async function updateTeamAccount(
  deps: Deps,
  caller: Caller,
  accountId: string,
  input: UpdateAccountInput,
  challengeId: string,
): Promise<AccountView> {
  if (input.full_name?.trim() === '')
    throw invalidField(['body', 'full_name'], 'Full name must not be blank');
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    await lockClientTeam(tx, caller.clientId);
    const target = await findAccount(tx, caller.clientId, accountId);
    if (!target) throw notFound(M.accountNotFound);
    const staysActiveOwner =
      (input.role ?? target.role) === 'owner' && (input.is_active ?? target.isActive) === true;
    if (target.role === 'owner' && target.isActive && !staysActiveOwner) {
      if ((await countOtherActiveOwners(tx, caller.clientId, target.id)) === 0)
        throw badRequest(M.lastOwnerDemote);
    }
    await consumeSecurityChallenge(tx, challengeId, now);
    const updated = await updateAccount(tx, target.id, {
      ...(input.role !== undefined ? { role: input.role } : {}),
      ...(input.full_name !== undefined ? { fullName: input.full_name.trim() } : {}),
      ...(input.is_active !== undefined ? { isActive: input.is_active } : {}),
      updatedAt: now,
    });
    const changes = diffChanges(
      { role: target.role, full_name: target.fullName, is_active: target.isActive },
      { role: updated.role, full_name: updated.fullName, is_active: updated.isActive },
    );
    await recordActivity(tx, {
      clientId: caller.clientId,
      action: changes?.role ? 'team_member.role_changed' : 'team_member.updated',
      at: now,
      target: { type: 'team_member', id: target.id, label: target.email },
      changes,
    });
    return updated;
  });
  return toAccountView(row);
}

export async function deleteTeamAccount(
  deps: Deps,
  caller: Caller,
  accountId: string,
  challengeId: string,
): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await lockClientTeam(tx, caller.clientId);
    const target = await findAccount(tx, caller.clientId, accountId);
    if (!target) throw notFound(M.accountNotFound);
    if (
      target.role === 'owner' &&
      target.isActive &&
      (await countOtherActiveOwners(tx, caller.clientId, target.id)) === 0
    ) {
      throw badRequest(M.lastOwnerDelete);
    }
    if (target.id === caller.accountId) throw badRequest(M.cannotDeleteSelf);
    await consumeSecurityChallenge(tx, challengeId, now);
    await deleteAccount(tx, target.id);
    await recordActivity(tx, {
      clientId: caller.clientId,
      action: 'team_member.removed',
      at: now,
      target: { type: 'team_member', id: target.id, label: target.email },
      changes: { role: { from: target.role, to: null } },
    });
    await notify(tx, {
      clientId: caller.clientId,
      category: 'security',
      severity: 'warning',
      title: 'Team member removed',
      body: `${target.email} (${target.role}) was removed from the team.`,
      item: { type: 'team_member', id: target.id },
      audience: { roles: OWNER_ONLY },
      at: now,
    });
  });
}
