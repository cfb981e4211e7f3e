/**
 * Self-service registration: a client and its owner account are created pending verification; a
 * 6-digit code (24 hours, 5 attempts) is emailed; verifying it activates both. Resend has a
 * 60-second cooldown per email address that applies whether or not the address is registered,
 * so the endpoint does not reveal which addresses exist.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { accounts, clients, emailVerifications } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { machineTable, transition } from '../../../platform/machine';
import { addSeconds } from '../../../shared/clock';
import { keyedHash, safeEqual } from '../../../shared/crypto';
import { badRequest, forbidden, invalidField } from '../../../shared/errors';
import { randomDigits } from '../../../shared/ids';
import { M } from '../../../shared/messages';
import { isRegistrationEnabled } from '../../admin/platform-settings.service';
import { sendAuthMail } from '../auth-mail.service';
import {
  findActiveLock,
  lockedError,
  recordFailure,
  startCooldown,
  VERIFY_EMAIL_RULE,
} from '../login/throttle.service';
import { hashPassword, isPasswordLongEnough, PASSWORD_MIN_LENGTH } from '../passwords/hashing.service';
import { clientMachine } from './registration.machine';

export const VERIFICATION_CODE_TTL_SECONDS = 24 * 60 * 60;
export const VERIFICATION_RESEND_COOLDOWN_SECONDS = 60;
export const VERIFICATION_MAX_ATTEMPTS = 5;

const clientTable = machineTable(clientMachine, clients, { conflict: M.clientChangedMeanwhile });

const resendKey = (email: string) => `verify-resend:${email}`;
const verifyKey = (email: string) => `verify-email:${email}`;
const normalize = (email: string) => email.trim().toLowerCase();

export interface RegisterInput {
  email: string;
  password: string;
  company_name: string;
  full_name: string;
}

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === '23505') return true;
  }
  return false;
}

function verificationMail(email: string, code: string) {
  return {
    to: email,
    subject: 'Verify your email address',
    text: `Your verification code is ${code}.\nIt is valid for 24 hours. If you did not sign up, ignore this email.`,
  };
}

export async function registerClient(deps: Deps, input: RegisterInput) {
  if (!(await isRegistrationEnabled(deps))) throw forbidden(M.registrationDisabled);
  if (!isPasswordLongEnough(input.password))
    throw invalidField(['body', 'password'], `Password must be at least ${PASSWORD_MIN_LENGTH} characters`);
  const email = normalize(input.email);
  const companyName = input.company_name.trim();
  const fullName = input.full_name.trim();
  if (!companyName) throw invalidField(['body', 'company_name'], 'Company name must not be blank');
  if (!fullName) throw invalidField(['body', 'full_name'], 'Full name must not be blank');

  const [existing] = await deps.db
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(sql`lower(${accounts.email})`, email));
  if (existing) throw badRequest(M.accountEmailExists);

  const passwordHash = await hashPassword(input.password);
  const code = randomDigits(6);
  const now = deps.clock.now();
  let created: { clientId: string; accountId: string };
  try {
    created = await deps.db.transaction(async (tx) => {
      const [client] = await tx
        .insert(clients)
        .values({ companyName, email, status: 'pending_verification', createdAt: now, updatedAt: now })
        .returning({ id: clients.id });
      const [account] = await tx
        .insert(accounts)
        .values({
          clientId: client!.id,
          email,
          fullName,
          role: 'owner',
          passwordHash,
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: accounts.id });
      await tx.insert(emailVerifications).values({
        clientId: client!.id,
        accountId: account!.id,
        codeHash: keyedHash(deps.secrets.hashKey, code),
        expiresAt: addSeconds(now, VERIFICATION_CODE_TTL_SECONDS),
        sentAt: now,
        createdAt: now,
      });
      return { clientId: client!.id, accountId: account!.id };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw badRequest(M.accountEmailExists);
    throw err;
  }
  await startCooldown(deps.db, resendKey(email), VERIFICATION_RESEND_COOLDOWN_SECONDS, now);
  // Without the email the registration is unusable: undo it so the person can simply retry.
  await sendAuthMail(deps, verificationMail(email, code), () =>
    deps.db.transaction(async (tx) => {
      await tx.delete(emailVerifications).where(eq(emailVerifications.accountId, created.accountId));
      await tx.delete(accounts).where(eq(accounts.id, created.accountId));
      await tx.delete(clients).where(eq(clients.id, created.clientId));
      await tx.execute(sql`delete from auth_throttles where key = ${resendKey(email)}`);
    }),
  );
  return { client_id: created.clientId, email, status: 'pending_verification' as const };
}

async function findPending(deps: Deps, email: string) {
  const [row] = await deps.db
    .select({ verification: emailVerifications, account: accounts, client: clients })
    .from(accounts)
    .innerJoin(clients, eq(clients.id, accounts.clientId))
    .innerJoin(emailVerifications, eq(emailVerifications.accountId, accounts.id))
    .where(eq(sql`lower(${accounts.email})`, email));
  return row;
}

export async function verifyEmail(deps: Deps, input: { email: string; code: string }) {
  const email = normalize(input.email);
  const now = deps.clock.now();
  // Each resend allows 5 more guesses; this caps guessing across resends.
  const lock = await findActiveLock(deps.db, [verifyKey(email)], now);
  if (lock) throw lockedError(lock, now, VERIFY_EMAIL_RULE.limit, M.tooManyAttempts);
  const row = await findPending(deps, email);
  const v = row?.verification;
  if (
    !row ||
    !v ||
    v.consumedAt ||
    row.account.emailVerifiedAt ||
    v.expiresAt <= now ||
    v.attempts >= VERIFICATION_MAX_ATTEMPTS
  ) {
    throw badRequest(M.verificationCodeInvalid);
  }
  if (!safeEqual(v.codeHash, keyedHash(deps.secrets.hashKey, input.code.trim()))) {
    await deps.db
      .update(emailVerifications)
      .set({ attempts: sql`${emailVerifications.attempts} + 1` })
      .where(eq(emailVerifications.id, v.id));
    await recordFailure(deps.db, verifyKey(email), VERIFY_EMAIL_RULE, now);
    throw badRequest(M.verificationCodeInvalid);
  }
  await deps.db.transaction(async (tx) => {
    const used = await tx
      .update(emailVerifications)
      .set({ consumedAt: now })
      .where(and(eq(emailVerifications.id, v.id), isNull(emailVerifications.consumedAt)))
      .returning({ id: emailVerifications.id });
    if (used.length !== 1) throw badRequest(M.verificationCodeInvalid);
    await tx
      .update(accounts)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(eq(accounts.id, row.account.id));
    // Another verification that moved the client first leaves nothing to do.
    if (clientMachine.can('verify_email', row.client.status))
      await transition(tx, clientTable, row.client, 'verify_email', {
        set: { verifiedAt: now, updatedAt: now },
        lost: 'null',
      });
  });
  return { verified: true as const };
}

export async function resendVerification(deps: Deps, input: { email: string }) {
  const email = normalize(input.email);
  const now = deps.clock.now();
  const lock = await startCooldown(deps.db, resendKey(email), VERIFICATION_RESEND_COOLDOWN_SECONDS, now);
  if (lock) throw lockedError(lock, now, 1, M.codeResendTooSoon);
  const row = await findPending(deps, email);
  if (!row || row.account.emailVerifiedAt || row.verification.consumedAt) return { sent: true as const };
  const code = randomDigits(6);
  const previous = row.verification;
  await deps.db
    .update(emailVerifications)
    .set({
      codeHash: keyedHash(deps.secrets.hashKey, code),
      attempts: 0,
      expiresAt: addSeconds(now, VERIFICATION_CODE_TTL_SECONDS),
      sentAt: now,
    })
    .where(eq(emailVerifications.id, previous.id));
  await sendAuthMail(deps, verificationMail(row.account.email, code), async () => {
    // The new code never reached the person: allow an immediate retry.
    await deps.db.execute(sql`delete from auth_throttles where key = ${resendKey(email)}`);
  });
  return { sent: true as const };
}
