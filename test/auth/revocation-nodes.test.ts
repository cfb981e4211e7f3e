/**
 * Revocation across nodes: two service processes on one PostgreSQL database. A token revoked,
 * disabled or rotated through node A is refused by node B on the very next request (the stated
 * bound is zero: token state is read from the database on every request, no per-node cache).
 * PGlite is a single-process engine (one data-directory lock), so this file runs on PostgreSQL only.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPostgres } from '../../src/db/client';
import { accounts, clients } from '../../src/db/schema/index';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import { M } from '../../src/shared/messages';
import { testEngine } from '../helpers/db';
import { isolatedServiceEnv, type ServiceProcess, startService } from '../helpers/process';

const onPostgres = testEngine() === 'postgres';
const json = async (r: Response) => (await r.json()) as Record<string, string>;

describe.skipIf(!onPostgres)('revocation across two service processes', () => {
  let a: ServiceProcess;
  let b: ServiceProcess;
  let database: Database;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  let clientId: string;
  let accountId: string;

  beforeAll(async () => {
    const iso = await isolatedServiceEnv();
    env = { ...iso.env, LOG_LEVEL: 'warn', SVC_WORKERS_ENABLED: 'false' };
    cleanup = iso.cleanup;
    a = await startService(env); // applies the migrations
    b = await startService(env);
    database = await openPostgres(env.DATABASE_URL!, { poolSize: 2 });
    const tag = randomBytes(4).toString('hex');
    const [c] = await database.db
      .insert(clients)
      .values({
        companyName: 'Nodes',
        email: `nodes-${tag}@example.com`,
        status: 'active',
        verifiedAt: new Date(),
      })
      .returning({ id: clients.id });
    clientId = c!.id;
    const [acc] = await database.db
      .insert(accounts)
      .values({
        clientId,
        email: `owner-${tag}@example.com`,
        fullName: 'Owner',
        role: 'owner',
        passwordHash: 'x',
        emailVerifiedAt: new Date(),
      })
      .returning({ id: accounts.id });
    accountId = acc!.id;
  }, 180_000);

  afterAll(async () => {
    for (const p of [a, b]) {
      if (p && p.child.exitCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
    await database?.close();
    await cleanup?.();
  });

  const dashboardToken = async () =>
    (
      await signToken(
        new TextEncoder().encode(env.SVC_JWT_SECRET!),
        {
          sub: clientId,
          type: 'client_access',
          actor_type: 'client_user',
          role: 'owner',
          account_id: accountId,
          environment: 'sandbox',
        },
        1800,
        new Date(),
      )
    ).token;

  const call = (node: ServiceProcess, path: string, token: string, init: RequestInit = {}) =>
    fetch(`${node.baseUrl}/api/v1${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    });

  it('a logout on node A is refused by node B on the next request', async () => {
    const token = await dashboardToken();
    expect((await call(b, '/auth/client/settings', token)).status).toBe(200);
    const out = await call(a, '/auth/logout', token, { method: 'POST', body: '{}' });
    expect(out.status).toBe(200);
    const after = await call(b, '/auth/client/settings', token);
    expect(after.status).toBe(401);
    expect((await json(after)).detail).toBe(M.tokenRevoked);
  });

  it('an API credential disabled on node A stops its tokens on node B at once', async () => {
    const owner = await dashboardToken();
    const created = await call(a, '/auth/api-credentials', owner, {
      method: 'POST',
      body: JSON.stringify({ label: 'nodes', role: 'developer' }),
    });
    expect(created.status).toBe(201);
    const cred = await json(created);
    const exchanged = await fetch(`${b.baseUrl}/api/v1/auth/api-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: cred.api_key, api_secret: cred.api_secret }),
    });
    expect(exchanged.status).toBe(200);
    const apiToken = (await json(exchanged)).access_token!;
    expect((await call(b, '/auth/client/settings', apiToken)).status).toBe(200);
    const disabled = await call(a, `/auth/api-credentials/${cred.credential_id}/disable`, owner, {
      method: 'POST',
    });
    expect(disabled.status).toBe(200);
    const after = await call(b, '/auth/client/settings', apiToken);
    expect(after.status).toBe(401);
    expect((await json(after)).detail).toBe(M.invalidApiKey);
  });

  it('a deactivated account is refused on both nodes at once', async () => {
    const token = await dashboardToken();
    expect((await call(a, '/auth/client/settings', token)).status).toBe(200);
    await database.db.update(accounts).set({ isActive: false }).where(eq(accounts.id, accountId));
    for (const node of [a, b]) {
      const res = await call(node, '/auth/client/settings', token);
      expect(res.status).toBe(401);
      expect((await json(res)).detail).toBe(M.accountNotActive);
    }
  });
});
