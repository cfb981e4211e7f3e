/**
 * Bank choice through the Token.io adapter (part of `npm run bench`, alone: `npm run bench:tokenio`):
 * the adapter's startAuthorization (request body, signing, the platform client's deadline, breaker
 * and metrics, JSON and status mapping) against the Token.io stand-in running in its own process,
 * and, as its floor, the same POST /v2/payments sent raw with undici. The ratio is the adapter's
 * overhead over the HTTP call itself. Options (env): BENCH_DURATION (s, default 15),
 * BENCH_CONNECTIONS (calls in flight, default 10).
 */
import { spawn } from 'node:child_process';
import pino from 'pino';
import { Registry } from 'prom-client';
import { request } from 'undici';
import { loadConfig } from '../src/config';
import type { Payee } from '../src/providers/bank/port';
import { createTokenio } from '../src/providers/bank/tokenio/index';
import { freePort } from './api';
import { type Measured, printTable, stopChild } from './report';

const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const API_KEY = 'bench-api-key';

/** Runs `call` with CONNECTIONS in flight for `seconds`; latencies in ms. */
async function closedLoop(name: string, seconds: number, call: () => Promise<boolean>): Promise<Measured> {
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

export async function runTokenioBench(): Promise<{ adapter: Measured; raw: Measured }> {
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
    const { bank, subTpp } = createTokenio(config.tokenio!, 'http://127.0.0.1:8000', {
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
  } finally {
    await stopChild(standin);
  }
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

if (import.meta.url === `file://${process.argv[1]}`) await runTokenioBench();
