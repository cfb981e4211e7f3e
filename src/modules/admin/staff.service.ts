/**
 * Staff accounts (service_internal): creation (CLI, bootstrap at start), login with a lockout
 * stored in the database, and staff tokens that client routes never accept.
 */
import { eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { staffAccounts, staffLoginAttempts } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addSeconds, secondsUntil } from '../../shared/clock';
import { AppError, tooManyRequests, unauthorized } from '../../shared/errors';
import { M } from '../../shared/messages';
import { hashPassword, verifyPassword } from '../auth/passwords/hashing.service';
import { signToken } from '../auth/sessions/tokens.service';
import { isUniqueViolation } from '../customers/customers.repo';

export const STAFF_TOKEN_TTL_SECONDS = 30 * 60;
export const STAFF_LOGIN_MAX_FAILURES = 5;
export const STAFF_LOGIN_LOCK_SECONDS = 5 * 60;
/** Failures older than this no longer count towards the lock. */
export const STAFF_LOGIN_WINDOW_SECONDS = 15 * 60;
export const MIN_STAFF_PASSWORD = 8;

const emailKey = (email: string) => email.trim().toLowerCase();

export interface StaffView {
  staff_id: string;
  email: string;
  full_name: string | null;
  created_at: string;
}

/** Creates a staff account; `created: false` (and the password untouched) when the email exists. */
export async function createStaff(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { email: string; password: string; fullName?: string | null },
): Promise<{ created: boolean; staff: StaffView }> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new AppError(400, 'A valid email is required');
  if (input.password.length < MIN_STAFF_PASSWORD) {
    throw new AppError(400, `Password must be at least ${MIN_STAFF_PASSWORD} characters`);
  }
  const passwordHash = await hashPassword(input.password);
  try {
    const [row] = await deps.db
      .insert(staffAccounts)
      .values({ email, fullName: input.fullName ?? null, passwordHash, createdAt: deps.clock.now() })
      .onConflictDoNothing()
      .returning();
    if (row) return { created: true, staff: toStaffView(row) };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const [existing] = await deps.db
    .select()
    .from(staffAccounts)
    .where(sql`lower(${staffAccounts.email}) = ${emailKey(email)}`);
  return { created: false, staff: toStaffView(existing!) };
}

function toStaffView(s: typeof staffAccounts.$inferSelect): StaffView {
  return { staff_id: s.id, email: s.email, full_name: s.fullName, created_at: s.createdAt.toISOString() };
}

/** Start task: the staff account from SVC_BOOTSTRAP_STAFF_EMAIL/PASSWORD, created when absent. */
export async function ensureBootstrapStaff(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'log'>,
): Promise<void> {
  const { bootstrapStaffEmail: email, bootstrapStaffPassword: password } = deps.config;
  if (!email || !password) return;
  const { created } = await createStaff(deps, { email, password, fullName: 'Bootstrap staff' });
  if (created) deps.log.info({ email }, 'bootstrap staff account created');
}

async function lockState(deps: Pick<Deps, 'db'>, key: string) {
  const [row] = await deps.db.select().from(staffLoginAttempts).where(eq(staffLoginAttempts.emailKey, key));
  return row;
}

/** Counts a failure atomically; locks the email once the threshold is reached inside the window. */
async function recordFailure(deps: Pick<Deps, 'db'>, key: string, now: Date): Promise<void> {
  const windowStart = addSeconds(now, -STAFF_LOGIN_WINDOW_SECONDS).toISOString();
  const nowIso = now.toISOString();
  const res = await deps.db.execute(sql`
    insert into staff_login_attempts (email_key, failures, window_started_at, locked_until, updated_at)
    values (${key}, 1, ${nowIso}::timestamptz, null, ${nowIso}::timestamptz)
    on conflict (email_key) do update set
      failures = case when staff_login_attempts.window_started_at <= ${windowStart}::timestamptz
                      then 1 else staff_login_attempts.failures + 1 end,
      window_started_at = case when staff_login_attempts.window_started_at <= ${windowStart}::timestamptz
                      then ${nowIso}::timestamptz else staff_login_attempts.window_started_at end,
      updated_at = ${nowIso}::timestamptz
    returning failures`);
  const failures = Number(rowsOf<{ failures: number }>(res)[0]?.failures ?? 0);
  if (failures >= STAFF_LOGIN_MAX_FAILURES) {
    await deps.db
      .update(staffLoginAttempts)
      .set({ lockedUntil: addSeconds(now, STAFF_LOGIN_LOCK_SECONDS), failures: 0, windowStartedAt: now })
      .where(eq(staffLoginAttempts.emailKey, key));
  }
}

export async function loginStaff(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>,
  email: string,
  password: string,
): Promise<{ access_token: string; token_type: 'bearer'; expires_in: number }> {
  const key = emailKey(email);
  const now = deps.clock.now();
  const state = await lockState(deps, key);
  if (state?.lockedUntil && state.lockedUntil > now) {
    const wait = secondsUntil(now, state.lockedUntil);
    throw tooManyRequests(M.tooManyAttempts(wait), wait, STAFF_LOGIN_MAX_FAILURES, state.lockedUntil);
  }
  const [staff] = await deps.db
    .select()
    .from(staffAccounts)
    .where(sql`lower(${staffAccounts.email}) = ${key}`);
  // Same argon2id settings and per-core bound as merchant logins; an unknown email costs a verify too.
  const ok = await verifyPassword(staff?.passwordHash, password);
  if (!ok || !staff?.isActive) {
    await recordFailure(deps, key, now);
    throw unauthorized(M.incorrectLogin);
  }
  if (state) await deps.db.delete(staffLoginAttempts).where(eq(staffLoginAttempts.emailKey, key));
  const signed = await signToken(
    deps.secrets.jwtKey,
    {
      sub: staff.id,
      type: 'staff_access',
      actor_type: 'service_internal',
      environment: deps.config.environment,
    },
    STAFF_TOKEN_TTL_SECONDS,
    now,
  );
  return { access_token: signed.token, token_type: 'bearer', expires_in: STAFF_TOKEN_TTL_SECONDS };
}
