/**
 * Bank choice through the Token.io adapter (part of `npm run bench`, alone: `npm run bench:tokenio`):
 * the adapter's startAuthorization (request body, signing, the platform client's deadline, breaker
 * and metrics, JSON and status mapping) against the Token.io stand-in running in its own process,
 * and, as its floor, the same POST /v2/payments sent raw with undici. The ratio is the adapter's
 * overhead over the HTTP call itself. Options (env): BENCH_DURATION (s, default 15),
 * BENCH_CONNECTIONS (calls in flight, default 10).
 */
import { spawn } from 'node:child_process';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { Registry } from 'prom-client';
import { request } from 'undici';
import { loadConfig } from '../src/config';
import type { Deps } from '../src/deps';
import { readHeldPayments } from '../src/modules/payments/network-sync.service';
import type { Payee } from '../src/providers/bank/port';
import { tokenioSettings } from '../src/providers/bank/tokenio/config';
import { createTokenio } from '../src/providers/bank/tokenio/index';
import { systemClock } from '../src/shared/clock';
import { freePort, openBenchDatabase, seed } from './api';
import { type Measured, printTable, stopChild } from './report';

const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const API_KEY = 'bench-api-key';

/** Runs `call` with CONNECTIONS in flight for `seconds`; latencies in ms. */
export async function closedLoop(
  name: string,
  seconds: number,
  call: () => Promise<boolean>,
): Promise<Measured> {
  const latencies: number[] = [];
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const ok = await call().catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) failed++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2));
  const m = { name, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), non2xx: failed, errors: 0 };
  console.log(`${name}: ${m.rps.toFixed(0)} calls/s, p50 ${m.p50} ms, p99 ${m.p99} ms, failed ${failed}`);
  return m;
}

/** The Token.io stand-in in its own process, the adapter wired to it and a Sub-TPP registered as the payee. */
export interface BenchTokenio {
  base: string;
  bank: ReturnType<typeof createTokenio>['bank'];
  payee: Payee;
  registrationId: string;
}

/** Runs `run` against a fresh stand-in (started with `extraArgs` too), stopped afterwards. */
export async function withBenchTokenio<T>(
  extraArgs: string[],
  run: (t: BenchTokenio) => Promise<T>,
): Promise<T> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The stand-in in its own process, so it does not share this process's CPU with the client.
  const standin = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/standins/tokenio/server.ts',
      '--port',
      String(port),
      '--api-key',
      API_KEY,
      '--auto-approve-ms',
      '0',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    await waitListening(`${base}/v2/banks?perPage=1`);
    const config = loadConfig({
      SVC_BANK_PROVIDER: 'tokenio',
      SVC_TOKENIO_API_URL: base,
      SVC_TOKENIO_MEMBER_ID: 'm:bench:member',
      SVC_TOKENIO_API_KEY: API_KEY,
      SVC_TOKENIO_WEBHOOK_SECRET: 'bench-webhook-path-secret',
      LOG_LEVEL: 'silent',
    });
    const { bank, subTpp } = createTokenio(tokenioSettings(config)!, 'http://127.0.0.1:8000', {
      metrics: new Registry(),
      log: pino({ level: 'silent' }),
    });
    const { registrationId } = await subTpp.register({
      opcoId: 'bench',
      clientId: 'bench',
      name: 'Bench Opco',
      domain: 'bench.example.com',
      countryCode: 'GB',
      registrationNumber: '1',
      mcc: '5999',
      parentSubTppId: null,
      legalEntityName: 'Bench Opco Ltd',
      primaryUseCase: 'PIS: eCommerce merchant payment',
      settlementIban: 'GB33BUKB20201555555555',
      settlementBic: null,
      registrationId: null,
    });
    await new Promise((r) => setTimeout(r, 200)); // the stand-in's review (--auto-approve-ms 0)
    const payee: Payee = {
      name: 'Bench Opco Ltd',
      iban: 'GB33BUKB20201555555555',
      bic: null,
      subTppId: registrationId,
    };
    return await run({ base, bank, payee, registrationId });
  } finally {
    await stopChild(standin);
  }
}

export async function runTokenioBench(): Promise<{ adapter: Measured; raw: Measured }> {
  return withBenchTokenio([], async ({ base, bank, payee, registrationId }) => {
    let n = 0;
    const refId = () => `bench${(++n).toString(36).padStart(12, '0')}`;
    const rawBody = (ref: string) =>
      JSON.stringify({
        initiation: {
          bankId: 'ob-modelo',
          refId: ref,
          remittanceInformationPrimary: ref,
          onBehalfOfId: registrationId,
          amount: { value: '12.50', currency: 'GBP' },
          localInstrument: 'FASTER_PAYMENTS',
          creditor: { name: 'Bench Opco Ltd', sortCode: '202015', accountNumber: '55555555' },
          callbackUrl: 'http://127.0.0.1:8000/checkout/x/return',
          callbackState: ref,
          flowType: 'EMBEDDED_HOSTED_PAGES',
        },
        pispConsentAccepted: true,
      });
    const raw = () =>
      request(`${base}/v2/payments`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${API_KEY}`,
          'content-type': 'application/json',
          'request-timeout': '9',
        },
        body: rawBody(refId()),
      }).then(async (r) => {
        const p = (await r.body.json()) as { payment?: { authentication?: { redirectUrl?: string } } };
        return r.statusCode === 200 && Boolean(p.payment?.authentication?.redirectUrl);
      });
    const viaAdapter = () =>
      bank
        .startAuthorization({
          refId: refId(),
          bankId: 'ob-modelo',
          returnUrl: 'http://127.0.0.1:8000/checkout/x/return',
          payment: { amount: '12.50', currency: 'GBP', payee },
        })
        .then((s) => s.authorizationUrl !== null);
    // Each scenario starts from an empty stand-in (its stored payments would slow the later one),
    // and each runs twice, alternating; the better run of each counts (the machine's speed drifts).
    const forget = () =>
      fetch(`${base}/_standin/control`, { method: 'POST', body: JSON.stringify({ action: 'forget' }) }).then(
        (r) => r.arrayBuffer(),
      );
    const run = async (name: string, call: () => Promise<boolean>) => {
      await forget();
      return closedLoop(name, DURATION, call);
    };
    await closedLoop('warm-up', 2, raw);
    await closedLoop('warm-up', 2, viaAdapter);
    const best = (a: Measured, b: Measured) => (a.rps >= b.rps ? a : b);
    const r1 = await run('raw POST /v2/payments (undici)', raw);
    const a1 = await run('bank choice through the Token.io adapter', viaAdapter);
    const r2 = await run('raw POST /v2/payments (undici)', raw);
    const a2 = await run('bank choice through the Token.io adapter', viaAdapter);
    const rawM = best(r1, r2);
    const adapterM = best(a1, a2);
    printTable([rawM], [{ ...adapterM, floor: rawM }]);
    console.log(
      `\nadapter overhead: ${(rawM.rps / adapterM.rps).toFixed(2)}x the raw call's time per call at equal concurrency (p50 ${adapterM.p50} vs ${rawM.p50} ms)`,
    );
    return { adapter: adapterM, raw: rawM };
  });
}

async function waitListening(url: string): Promise<void> {
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    const ok = await fetch(url, { headers: { authorization: `Basic ${API_KEY}` } }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

/**
 * The held-payment re-read sweep (`readHeldPayments`, run by the Token.io worker on the slow
 * cadence): HELD payments expired without a final status and held for manual review, LATE of them
 * completed late at Token.io. One full sweep (claims of 20 with SKIP LOCKED, a GET per payment,
 * the late completions raised through the status machine) on a fresh database, against its floor:
 * the same GETs sent one after the other with undici (the sweep reads one payment at a time).
 * Options (env): BENCH_HELD (default 500), BENCH_HELD_LATE (default 50).
 */
export async function runHeldReadBench(): Promise<{ held: number; sweepMs: number; floorMs: number }> {
  const HELD = Number(process.env.BENCH_HELD ?? 500);
  const LATE = Math.min(HELD, Number(process.env.BENCH_HELD_LATE ?? 50));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const standin = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/standins/tokenio/server.ts',
      '--port',
      String(port),
      '--api-key',
      API_KEY,
      '--auto-approve-ms',
      '0',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const env: Record<string, string | undefined> = {};
  const { database, cleanup } = await openBenchDatabase(env, 'bench_held');
  try {
    await waitListening(`${base}/v2/banks?perPage=1`);
    await database.migrate();
    const config = loadConfig({
      SVC_BANK_PROVIDER: 'tokenio',
      SVC_TOKENIO_API_URL: base,
      SVC_TOKENIO_MEMBER_ID: 'm:bench:member',
      SVC_TOKENIO_API_KEY: API_KEY,
      SVC_TOKENIO_WEBHOOK_SECRET: 'bench-webhook-path-secret',
      LOG_LEVEL: 'silent',
    });
    const log = pino({ level: 'silent' });
    const { bank, subTpp } = createTokenio(tokenioSettings(config)!, 'http://127.0.0.1:8000', {
      metrics: new Registry(),
      log,
    });
    const { registrationId } = await subTpp.register({
      opcoId: 'bench',
      clientId: 'bench',
      name: 'Bench Held Opco',
      domain: 'bench.example.com',
      countryCode: 'GB',
      registrationNumber: '1',
      mcc: '5999',
      parentSubTppId: null,
      legalEntityName: 'Bench Opco Ltd',
      primaryUseCase: 'PIS: eCommerce merchant payment',
      settlementIban: 'GB33BUKB20201555555555',
      settlementBic: null,
      registrationId: null,
    });
    await new Promise((r) => setTimeout(r, 200));
    const control = (cmd: Record<string, unknown>) =>
      request(`${base}/_standin/control`, { method: 'POST', body: JSON.stringify(cmd) }).then((r) =>
        r.body.arrayBuffer(),
      );
    // HELD payments at Token.io without a final status; LATE of them then report a completion.
    const ids: string[] = [];
    for (let i = 0; i < HELD; i++) {
      const ref = `held${i.toString(36).padStart(14, '0')}`;
      const r = await request(`${base}/v2/payments`, {
        method: 'POST',
        headers: { authorization: `Basic ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          initiation: {
            bankId: 'ob-modelo',
            refId: ref,
            remittanceInformationPrimary: ref,
            onBehalfOfId: registrationId,
            amount: { value: '12.50', currency: 'GBP' },
            localInstrument: 'FASTER_PAYMENTS',
            creditor: { name: 'Bench Opco Ltd', sortCode: '202015', accountNumber: '55555555' },
            callbackUrl: 'http://127.0.0.1:8000/checkout/x/return',
            callbackState: ref,
            flowType: 'EMBEDDED_HOSTED_PAGES',
          },
          pispConsentAccepted: true,
        }),
      });
      const id = ((await r.body.json()) as { payment: { id: string } }).payment.id;
      await control({
        action: 'setPaymentStatus',
        paymentId: id,
        status: 'INITIATION_NO_FINAL_STATUS_AVAILABLE',
      });
      if (i < LATE) await control({ action: 'reportLate', paymentId: id, status: 'INITIATION_COMPLETED' });
      ids.push(id);
    }
    const s = await seed(database, 2000);
    await database.db.execute(sql`
      insert into transactions (id, client_id, project_id, user_id, amount, currency, status, provider_status,
                                reconciliation_state, ref_id, checkout_token, transfer_id, expires_at,
                                completed_at, created_at, updated_at)
      select gen_random_uuid(), ${s.clientId}::uuid, ${s.projectId}::uuid, ${s.userId}::uuid, 12.50, 'GBP',
             'expired', 'no_final_status', 'manual_review_required', 'held' || g, 'tok_held_' || g,
             (string_to_array(${ids.join(',')}, ','))[g], now() - interval '1 hour', now() - interval '10 minutes',
             now() - interval '1 hour', now() - interval '10 minutes'
        from generate_series(1, ${HELD}) as g`);
    const deps = {
      db: database.db,
      database,
      clock: systemClock,
      config,
      providers: { bank },
      events: { emit: async () => false },
      log,
    } as unknown as Deps;
    const t0 = performance.now();
    let read = 0;
    for (let n = 1; n > 0; read += n) n = await readHeldPayments(deps, { intervalSeconds: 7200, days: 5 });
    const sweepMs = performance.now() - t0;
    const late = await database.db.execute(
      sql`select count(*)::int as n from transactions where provider_status = 'completed' and reconciliation_state = 'manual_review_required'`,
    );
    const raised = ((late as unknown as { rows?: { n: number }[] }).rows ??
      (late as unknown as { n: number }[]))[0]?.n;
    const t1 = performance.now();
    for (const id of ids) {
      const r = await request(`${base}/v2/payments/${encodeURIComponent(id)}`, {
        headers: { authorization: `Basic ${API_KEY}` },
      });
      await r.body.json();
    }
    const floorMs = performance.now() - t1;
    console.log(
      `held-payment re-read sweep: ${read} payments read in ${sweepMs.toFixed(0)} ms (${(sweepMs / read).toFixed(2)} ms each, ${((read * 1000) / sweepMs).toFixed(0)}/s), ${raised} late completions raised of ${LATE}`,
    );
    console.log(
      `floor, the same ${ids.length} GETs one after the other: ${floorMs.toFixed(0)} ms (${(floorMs / ids.length).toFixed(2)} ms each); sweep/floor ${(sweepMs / floorMs).toFixed(2)}x`,
    );
    return { held: read, sweepMs, floorMs };
  } finally {
    await stopChild(standin);
    await database.close?.();
    await cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runTokenioBench();
  console.log('\n## Held-payment re-read sweep\n');
  await runHeldReadBench();
}
