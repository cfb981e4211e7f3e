/**
 * The travel rule over TRP between two real service processes in production mode on PostgreSQL
 * (`node dist/server.js`, test/helpers/process.ts), each the other's counterparty VASP on loopback:
 * - A sends, B's customer's wallet receives: B's inbound transfer awaits review with name_match,
 *   B accepts, A is accepted, A reports the tx hash, both end completed with it;
 * - B rejects the second: A is rejected with B's reason;
 * - an inquiry for an address nobody at B holds is answered rejected (unknown beneficiary);
 * - a counterparty that is down: the dispatch is retried by the job (SVC_TRP_RETRY_SECONDS), then
 *   the transfer is counterparty_not_reachable;
 * - TRP identity on B's inquiry URL made for its client: its name and LEI, our mTLS certificate;
 *   and at B's root as TRISA's client asks for it: the address `svc travel-rule inquiry-address
 *   --client` prints at B, its path replaced by `/identity`, its query (the client's token) kept.
 * Each process runs its jobs on the system clock with waits of one second.
 */
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, clients, kycUsers, screeningWallets, travelRuleSettings } from '../../src/db/schema/index';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import { UNKNOWN_BENEFICIARY_REASON } from '../../src/modules/travel-rule/network.inbound';
import { decodeTravelAddress } from '../../src/providers/travel-rule/trp/travel-address';
import { eip55 } from '../../src/shared/chain-addresses';
import { deriveSecrets } from '../../src/shared/crypto';
import { PRODUCTION_PAYEE_ENV } from '../helpers/app';
import {
  freePort,
  isolatedServiceEnv,
  type ServiceProcess,
  spawnCaptured,
  startService,
} from '../helpers/process';
import { openServiceDatabase } from '../helpers/service-world';
import { makeTestPki } from '../helpers/tls-certs';

const onPostgres = process.env.TEST_ENGINE === 'postgres';
const LEI_A = '5493001KJTIIGC8Y1R12';
const LEI_B = '529900T8BM49AURSDO55';
const DTI_ETH = 'X9J9K872S';
const addr = () => eip55(`0x${randomBytes(20).toString('hex')}`);

interface Vasp {
  env: Record<string, string>;
  port: number;
  proc?: ServiceProcess;
  clientId: string;
  token: string;
  userId: string;
}

const cleanups: (() => Promise<void>)[] = [];
const procs: ServiceProcess[] = [];

async function seed(env: Record<string, string>, lei: string, name: string, wallet: string | null) {
  const db = await openServiceDatabase(env);
  try {
    await db.migrate();
    const tag = randomBytes(4).toString('hex');
    const [client] = await db.db
      .insert(clients)
      .values({
        companyName: name,
        email: `vasp-${tag}@example.com`,
        status: 'active',
        productionAccessEnabled: true,
        features: { travel_rule: true },
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
    await db.db.insert(travelRuleSettings).values({
      clientId,
      thresholdAmount: '1000.00',
      thresholdCurrency: 'EUR',
      originatorVasp: { name, lei, country: 'DE' },
      screenCounterpartyWallet: false,
    });
    const [user] = await db.db
      .insert(kycUsers)
      .values({ clientId, email: `ben-${tag}@example.com`, firstName: 'Bea', lastName: 'Berger' })
      .returning({ id: kycUsers.id });
    if (wallet)
      await db.db.insert(screeningWallets).values({
        clientId,
        chain: 'ethereum',
        address: wallet,
        normalizedAddress: wallet.toLowerCase(),
        userId: user!.id,
      });
    const { token } = await signToken(
      deriveSecrets(env.SVC_JWT_SECRET!, env.SVC_DATA_KEY!).jwtKey,
      {
        sub: clientId,
        type: 'client_access',
        actor_type: 'client_user',
        role: 'owner',
        account_id: account!.id,
        environment: 'production',
      },
      3600,
      new Date(),
    );
    return { clientId, token, userId: user!.id };
  } finally {
    await db.close();
  }
}

async function call(v: Vasp, path: string, body?: unknown) {
  const res = await fetch(`${v.proc!.baseUrl}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${v.token}`,
      ...(body === undefined
        ? {}
        : { 'content-type': 'application/json', 'x-idempotency-key': randomBytes(8).toString('hex') }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Polls `read` until `done` (the processes answer on their own clock). */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!onPostgres)('TRP between two service processes', () => {
  const a = {} as Vasp;
  const b = {} as Vasp;
  const benWallet = addr(); // held by B's customer
  const strayWallet = addr(); // listed as B's, held by nobody at B
  const downWallet = addr(); // held by a VASP that is down
  const secret = () => randomBytes(24).toString('hex');
  let certPem = '';

  beforeAll(async () => {
    a.port = await freePort();
    b.port = await freePort();
    const downPort = await freePort();
    const base = (p: number) => `http://127.0.0.1:${p}`;
    // Production requires our mTLS client certificate (the peers here are on loopback http).
    const pkiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trp-e2e-'));
    cleanups.push(async () => fs.rmSync(pkiDir, { recursive: true, force: true }));
    const pki = makeTestPki(pkiDir);
    certPem = fs.readFileSync(pki.clientCert, 'utf8');
    const secrets = new Map([a, b].map((v) => [v, secret()]));
    // The inquiry URL the VASP on port `p` (keyed by `key`) gave the counterparty it lists as `id`
    // (docs/going-live-trp.md, step 2).
    const inquiry = (p: number, id: string, key = secret()) =>
      `${base(p)}/api/v1/providers/travel-rule/trp/notifications/i.${id}.${createHmac('sha256', key).update(`i.${id}`).digest('base64url')}`;
    const dirA = [
      {
        vasp_id: 'vasp-b',
        name: 'VASP B',
        country: 'DE',
        lei: LEI_B,
        inquiry_url: inquiry(b.port, 'vasp-a', secrets.get(b)),
        addresses: [
          { chain: 'ethereum', address: benWallet },
          { chain: 'ethereum', address: strayWallet },
        ],
      },
      {
        vasp_id: 'vasp-down',
        name: 'VASP Down',
        country: 'FR',
        lei: '969500UP76J52A9OXU27',
        inquiry_url: inquiry(downPort, 'vasp-a'),
        addresses: [{ chain: 'ethereum', address: downWallet }],
      },
    ];
    const dirB = [
      {
        vasp_id: 'vasp-a',
        name: 'VASP A',
        country: 'DE',
        lei: LEI_A,
        inquiry_url: inquiry(a.port, 'vasp-b', secrets.get(a)),
        addresses: [],
      },
    ];
    const both = [
      [a, a.port, dirA, LEI_A, 'VASP A', null],
      [b, b.port, dirB, LEI_B, 'VASP B', benWallet],
    ] as const;
    // Both databases are made and seeded at once (each its own PostgreSQL database).
    await Promise.all(
      both.map(async ([v, port, dir, lei, name, wallet]) => {
        const iso = await isolatedServiceEnv();
        cleanups.push(iso.cleanup);
        v.env = {
          ...iso.env,
          ...PRODUCTION_PAYEE_ENV,
          SVC_ENVIRONMENT: 'production',
          SVC_LOCAL_MAIL: 'true',
          LOG_LEVEL: 'warn',
          SVC_WORKER_POLL_MS: '50',
          SVC_PUBLIC_URL: base(port),
          SVC_TRAVEL_RULE_PROVIDER: 'trp',
          SVC_TRP_PUBLIC_URL: base(port),
          SVC_TRP_DIRECTORY: JSON.stringify(dir),
          SVC_TRP_ASSETS: `ETH:ethereum:18:${DTI_ETH}`,
          SVC_TRP_CALLBACK_SECRET: secrets.get(v)!,
          SVC_TRP_RETRY_SECONDS: '1,1',
          SVC_TRP_TIMEOUT_MS: '2000',
          SVC_TRP_TLS_CERT_FILE: pki.clientCert,
          SVC_TRP_TLS_KEY_FILE: pki.clientKey,
        };
        Object.assign(v, await seed(v.env, lei, name, wallet));
      }),
    );
    [a.proc, b.proc] = await Promise.all(
      [a, b].map((v) => startService(v.env, v.port, { readyTimeoutMs: 120_000 })),
    );
    procs.push(a.proc!, b.proc!);
  }, 180_000);

  afterAll(async () => {
    for (const p of procs)
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    for (const c of cleanups) await c();
  });

  const party = (first: string, last: string, account: string) => ({
    type: 'natural',
    first_name: first,
    last_name: last,
    account_number: account,
    address: { street: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
    date_of_birth: '1980-02-03',
    place_of_birth: 'Hamburg',
  });
  const send = (to: string, ref: string, amount = '1.25') =>
    call(a, '/travel-rule/transfers', {
      asset: 'ETH',
      chain: 'ethereum',
      amount,
      fiat_value: { amount: '3000.00', currency: 'EUR' },
      originator: party('Otto', 'Orlov', addr()),
      beneficiary: party('Bea', 'Berger', to),
      counterparty_wallet: { address: to },
      client_reference: ref,
    });
  const inboundAtB = (ref: string) =>
    until(
      () => call(b, `/travel-rule/transfers?direction=inbound&page_size=50`),
      (r) => (r.body.transfers ?? []).length >= Number(ref),
    );
  const get = (v: Vasp, id: string) => call(v, `/travel-rule/transfers/${id}`);

  it('accepted by B, then completed on both sides with the tx hash', async () => {
    const sent = await send(benWallet, 'trp-1', '1.000000000000000001');
    expect(sent.status).toBe(201);
    expect(sent.body.status).toBe('awaiting_counterparty');
    expect(sent.body.beneficiary_vasp.name).toBe('VASP B');
    const list = await inboundAtB('1');
    const inbound = list.body.transfers[0];
    expect(inbound).toMatchObject({
      direction: 'inbound',
      status: 'awaiting_review',
      asset: 'ETH',
      chain: 'ethereum',
      amount: '1.000000000000000001',
      fiat_value: null,
      name_match: 'exact',
      user_id: b.userId,
    });
    expect(inbound.originator).toMatchObject({
      type: 'natural',
      first_name: 'Otto',
      last_name: 'Orlov',
      date_of_birth: '1980-02-03',
    });
    expect(inbound.originator_vasp).toMatchObject({ name: 'VASP A', lei: LEI_A });
    const accepted = await call(b, `/travel-rule/transfers/${inbound.transfer_id}/accept`, {});
    expect(accepted.body.status).toBe('accepted');
    const atA = await until(
      () => get(a, sent.body.transfer_id),
      (r) => r.body.status === 'accepted',
    );
    expect(atA.body.status).toBe('accepted');
    const hash = `0x${randomBytes(32).toString('hex')}`;
    const done = await call(a, `/travel-rule/transfers/${sent.body.transfer_id}/tx-hash`, { tx_hash: hash });
    expect(done.body.status).toBe('completed');
    const atB = await until(
      () => get(b, inbound.transfer_id),
      (r) => r.body.status === 'completed',
    );
    expect(atB.body).toMatchObject({ status: 'completed', tx_hash: hash });
  });

  it('rejected by B: A is rejected with B’s reason', async () => {
    const sent = await send(benWallet, 'trp-2');
    expect(sent.body.status).toBe('awaiting_counterparty');
    const list = await inboundAtB('2');
    const inbound = list.body.transfers.find((t: any) => t.status === 'awaiting_review');
    const rejected = await call(b, `/travel-rule/transfers/${inbound.transfer_id}/reject`, {
      reason: 'Beneficiary name does not match our records',
    });
    expect(rejected.body.status).toBe('rejected');
    const atA = await until(
      () => get(a, sent.body.transfer_id),
      (r) => r.body.status === 'rejected',
    );
    expect(atA.body).toMatchObject({
      status: 'rejected',
      status_reason: 'Beneficiary name does not match our records',
    });
  });

  it('an inquiry for a wallet nobody at B holds is answered rejected', async () => {
    const sent = await send(strayWallet, 'trp-3');
    expect(sent.body.status).toBe('awaiting_counterparty');
    const atA = await until(
      () => get(a, sent.body.transfer_id),
      (r) => r.body.status === 'rejected',
    );
    expect(atA.body).toMatchObject({ status: 'rejected', status_reason: UNKNOWN_BENEFICIARY_REASON });
    const atB = await call(b, '/travel-rule/transfers?direction=inbound&page_size=50');
    expect(atB.body.transfers).toHaveLength(2);
  });

  it('a counterparty that is down: retried by the job, then counterparty_not_reachable', async () => {
    const sent = await send(downWallet, 'trp-4');
    expect(sent.status).toBe(201);
    expect(sent.body.status).toBe('pending');
    const after = await until(
      () => get(a, sent.body.transfer_id),
      (r) => r.body.status === 'counterparty_not_reachable',
    );
    expect(after.body).toMatchObject({
      status: 'counterparty_not_reachable',
      status_reason: 'The counterparty VASP could not be reached (3 attempts)',
      beneficiary_vasp: { vasp_id: 'vasp-down', name: 'VASP Down' },
    });
  });

  it("TRP identity on B's inquiry URL made for its client: name and LEI from its settings, x509 our certificate", async () => {
    // What `svc travel-rule inquiry-address --vasp vasp-a --client <B's client>` prints at B.
    const id = `vasp-a.${b.clientId}`;
    const mac = createHmac('sha256', b.env.SVC_TRP_CALLBACK_SECRET!).update(`i.${id}`).digest('base64url');
    const url = `${b.proc!.baseUrl}/api/v1/providers/travel-rule/trp/notifications/i.${id}.${mac}`;
    const res = await fetch(`${url}/identity`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'VASP B', lei: LEI_B, x509: certPem });
    // The shared counterparty URL names no client: 404.
    const shared = createHmac('sha256', b.env.SVC_TRP_CALLBACK_SECRET!)
      .update('i.vasp-a')
      .digest('base64url');
    const none = await fetch(
      `${b.proc!.baseUrl}/api/v1/providers/travel-rule/trp/notifications/i.vasp-a.${shared}/identity`,
    );
    expect(none.status).toBe(404);
  });

  it("A reads B's client's identity as TRISA's client does: the issued address, path replaced by /identity, query kept", async () => {
    // B's operator runs the command and hands the result to A.
    const cli = spawnCaptured(
      process.execPath,
      ['bin/svc.mjs', 'travel-rule', 'inquiry-address', '--vasp', 'vasp-a', '--client', b.clientId],
      b.env,
    );
    expect(await cli.exited, cli.output()).toBe(0);
    const printed = JSON.parse(cli.output().slice(cli.output().indexOf('{'))) as {
      inquiry_url: string;
      travel_address: string;
    };
    const issued = new URL(printed.inquiry_url);
    expect(issued.searchParams.get('id')).toBe(issued.pathname.split('/').at(-1));
    // The travel address decodes (https implied) to the same path and query.
    const decoded = new URL(decodeTravelAddress(printed.travel_address));
    expect(`${decoded.host}${decoded.pathname}${decoded.search}`).toBe(
      `${issued.host}${issued.pathname}${issued.search}`,
    );
    // TRISA's `Identity`: `uri.Path = "/identity"` on the parsed address, query untouched.
    const trisa = new URL(printed.inquiry_url);
    trisa.pathname = '/identity';
    expect(trisa.href).toBe(`${b.proc!.baseUrl}/identity${issued.search}`);
    const res = await fetch(trisa, { headers: { 'api-version': '3.2.1' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'VASP B', lei: LEI_B, x509: certPem });
    // The root without a token, or with the shared URL's (no client): 404.
    for (const q of ['', '?t=i', `?id=i.vasp-a.${'A'.repeat(43)}&t=i`]) {
      const bad = await fetch(`${b.proc!.baseUrl}/identity${q}`);
      expect(bad.status, q).toBe(404);
      expect(await bad.json()).toEqual({ detail: 'Not Found' });
    }
    // The path form still answers (peers already given it), with or without the query.
    const pathForm = await fetch(`${b.proc!.baseUrl}${issued.pathname}/identity${issued.search}`);
    expect(await pathForm.json()).toEqual({ name: 'VASP B', lei: LEI_B, x509: certPem });
  });
});
