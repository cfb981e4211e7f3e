/**
 * The login scenarios of the API bench.
 *   - Logins: BENCH_LOGIN_ACCOUNTS accounts (default 20) of the seeded client, all with the same
 *     password, taken in turn, so the per-email in-flight cap (5) is not what is measured; prints
 *     the service's CPU per login.
 *   - Spraying: wrong passwords, a new email each, from one IP (the bench's). The first attempts
 *     run argon2 and answer 401; once the IP's failures reach its limit the IP is locked and every
 *     attempt is 429, refused before argon2. Prints 401s (verifications), 429s and the service's
 *     CPU over the run, as a share of the machine's cores. Run it last: it locks the bench's IP.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type autocannon from 'autocannon';
import type { Database } from '../src/db/client';
import { accounts } from '../src/db/schema/index';
import { hashPassword } from '../src/modules/auth/passwords/hashing.service';
import { autocannonRun, type Measured, measure } from './report';

const ACCOUNTS = Number(process.env.BENCH_LOGIN_ACCOUNTS ?? 20);
export const LOGIN_PASSWORD = 'bench-password-1';

/** Adds the login accounts to a seeded client; returns their emails. */
export async function seedLoginAccounts(database: Database, clientId: string): Promise<string[]> {
  const passwordHash = await hashPassword(LOGIN_PASSWORD);
  const tag = randomBytes(4).toString('hex');
  const rows = await database.db
    .insert(accounts)
    .values(
      Array.from({ length: ACCOUNTS }, (_, i) => ({
        clientId,
        email: `login-${i}-${tag}@example.com`,
        fullName: `Bench Login ${i}`,
        role: 'admin',
        passwordHash,
        emailVerifiedAt: new Date(),
      })),
    )
    .returning({ email: accounts.email });
  return rows.map((r) => r.email);
}

/** CPU time (user + system) of a process so far, in ms (Linux; 0 elsewhere). */
export function cpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in 100 Hz ticks
  } catch {
    return 0;
  }
}

export async function runLoginScenarios(
  base: string,
  emails: string[],
  pid: number | undefined,
  connections: number,
  duration: number,
): Promise<Measured[]> {
  const json = { 'content-type': 'application/json' };
  let next = 0;
  const inTurn = (password: () => string, email: () => string) => [
    {
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        body: JSON.stringify({ client_email: email(), password: password() }),
      }),
    },
  ];
  const cpu0 = cpuMs(pid);
  const logins = await measure(
    `POST /auth/login (argon2id, ${emails.length} accounts)`,
    {
      url: `${base}/api/v1/auth/login`,
      method: 'POST',
      headers: json,
      requests: inTurn(
        () => LOGIN_PASSWORD,
        () => emails[next++ % emails.length]!,
      ),
    },
    connections,
    duration,
  );
  const perLogin = (cpuMs(pid) - cpu0) / Math.max(1, logins.rps * duration);
  console.log(`  service CPU per login: ${perLogin.toFixed(1)} ms (warm-up included)`);

  // Spraying: no warm-up, so the run shows the verifications before the lock and the refusals after.
  const cpu1 = cpuMs(pid);
  const t0 = Date.now();
  const r = await autocannonRun({
    url: `${base}/api/v1/auth/login`,
    method: 'POST',
    headers: json,
    requests: inTurn(
      () => 'wrong-password',
      () => `spray-${randomBytes(6).toString('hex')}@example.com`,
    ),
    connections,
    duration,
  });
  const wall = Date.now() - t0;
  const stats = (r as unknown as { statusCodeStats: Record<string, { count: number }> }).statusCodeStats;
  const verified = stats['401']?.count ?? 0;
  const refused = stats['429']?.count ?? 0;
  const share = (cpuMs(pid) - cpu1) / (wall * os.cpus().length);
  const spray: Measured = {
    name: 'POST /auth/login spraying (wrong passwords, new email each, one IP)',
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
  console.log(
    `${spray.name}: ${spray.rps.toFixed(0)} req/s, p50 ${spray.p50} ms, p99 ${spray.p99} ms; ` +
      `${verified} answered 401 (argon2 ran), ${refused} answered 429 before argon2; ` +
      `service CPU ${(share * 100).toFixed(0)}% of ${os.cpus().length} cores`,
  );
  return [logins, spray];
}
