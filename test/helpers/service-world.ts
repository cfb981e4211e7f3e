/**
 * A client that can create payment links, seeded straight into the database of a service that runs as
 * a child process (test/helpers/process.ts), plus an owner access token for its API. The database is
 * opened and closed here, so a PGlite data directory is free again for the service.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type Database, openPglite, openPostgres } from '../../src/db/client';
import { accounts, clients, kycUsers, opcos, projects } from '../../src/db/schema/index';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import { deriveSecrets } from '../../src/shared/crypto';

export interface ServiceWorld {
  clientId: string;
  projectId: string;
  userId: string;
  token: string;
}

/** The service's database as the child process sees it (PGlite under SVC_DATA_DIR, or DATABASE_URL). */
export function openServiceDatabase(env: Record<string, string>): Promise<Database> {
  return env.DATABASE_URL
    ? openPostgres(env.DATABASE_URL, { poolSize: 2 })
    : openPglite({ dataDir: path.join(env.SVC_DATA_DIR!, 'pgdata') });
}

/** Migrates the database and seeds an active client, opco with a Sub-TPP ID, project and payer. */
export async function seedServiceWorld(env: Record<string, string>): Promise<ServiceWorld> {
  const db = await openServiceDatabase(env);
  try {
    await db.migrate();
    const tag = randomBytes(4).toString('hex');
    const [client] = await db.db
      .insert(clients)
      .values({
        companyName: 'Process Ltd',
        email: `proc-${tag}@example.com`,
        status: 'active',
        callbackUrl: 'https://merchant.example.com/return',
      })
      .returning({ id: clients.id });
    const clientId = client!.id;
    const [account] = await db.db
      .insert(accounts)
      .values({
        clientId,
        email: `owner-${tag}@example.com`,
        fullName: 'Owner',
        role: 'owner',
        passwordHash: 'x',
      })
      .returning({ id: accounts.id });
    const [opco] = await db.db
      .insert(opcos)
      .values({
        clientId,
        status: 'activated',
        opcoType: 'licensed_tpp_sole_trader',
        name: 'Opco',
        domain: 'opco.example.com',
        countryCode: 'GB',
        registrationNumber: '1',
        primaryUseCase: 'ecommerce',
        settlementIban: 'GB82WEST12345698765432',
        mcc: '5999',
        subTppId: `stpp_${tag}`,
      })
      .returning({ id: opcos.id });
    const [project] = await db.db
      .insert(projects)
      .values({ clientId, projectName: 'Main', opcoId: opco!.id })
      .returning({ id: projects.id });
    const [user] = await db.db
      .insert(kycUsers)
      .values({ clientId, email: `payer-${tag}@example.com` })
      .returning({ id: kycUsers.id });
    const { token } = await signToken(
      deriveSecrets(env.SVC_JWT_SECRET!, env.SVC_DATA_KEY!).jwtKey,
      {
        sub: clientId,
        type: 'client_access',
        actor_type: 'client_user',
        role: 'owner',
        account_id: account!.id,
        environment: 'sandbox',
      },
      3600,
      new Date(),
    );
    return { clientId, projectId: project!.id, userId: user!.id, token };
  } finally {
    await db.close();
  }
}

/** JSON API call to a service process as the seeded owner. */
export async function callService(
  baseUrl: string,
  world: ServiceWorld,
  pathname: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${baseUrl}/api/v1${pathname}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${world.token}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.headers ?? {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
