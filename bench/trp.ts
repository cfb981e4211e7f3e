/**
 * The TRP adapter's overhead (alone: `npm run bench:trp`): a transfer inquiry sent through the
 * adapter (`send`: directory and asset look-up, IVMS 101 mapping, exact integer amount, JSON, the
 * platform client's deadline, breaker and metrics, TRP headers) against its floor, the same inquiry
 * body posted raw with undici, both to a minimal TRP peer (test/standins/trp/peer.ts) in its own
 * process. The ratio is the adapter's cost over the HTTP call itself. Options (env): BENCH_DURATION
 * (s, default 10).
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Registry } from 'prom-client';
import { request } from 'undici';
import { loadTrpConfig } from '../src/providers/travel-rule/trp/config';
import { createTrp } from '../src/providers/travel-rule/trp/index';
import { inquiryJson, toIvms } from '../src/providers/travel-rule/trp/mapping';
import { freePort } from './api';
import { type Measured, printTable, stopChild } from './report';
import { closedLoop } from './tokenio';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WALLET = '0x1ed92c398d4a3cf40f84ce687c42c9861a89595c';

async function waitListening(url: string): Promise<void> {
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    const ok = await fetch(url, { method: 'POST' }).then(
      (r) => r.status === 400,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

export async function runTrpBench(): Promise<[Measured, Measured]> {
  const port = await freePort();
  const inquiryUrl = `http://127.0.0.1:${port}/trp/inquiry`;
  const peer = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/standins/trp/peer.ts', '--port', String(port)],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    await waitListening(inquiryUrl);
    const problems: string[] = [];
    const config = loadTrpConfig(
      {
        SVC_TRP_PUBLIC_URL: 'https://trp.bench.example',
        SVC_TRP_DIRECTORY: JSON.stringify([
          {
            vasp_id: 'peer',
            name: 'Peer',
            country: 'DE',
            lei: '529900T8BM49AURSDO55',
            inquiry_url: inquiryUrl,
            addresses: [],
          },
        ]),
        SVC_TRP_ASSETS: 'ETH:ethereum:18:X9J9K872S',
        SVC_TRP_CALLBACK_SECRET: 'bench-callback-secret-0123456789abcdef',
      },
      problems,
    );
    if (problems.length) throw new Error(problems.join('; '));
    const adapter = createTrp(config, { metrics: new Registry(), log: pino({ level: 'silent' }) });
    const party = (first: string, last: string, account: string) => ({
      type: 'natural' as const,
      first_name: first,
      last_name: last,
      account_number: account,
      address: { street: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
      date_of_birth: '1980-02-03',
      place_of_birth: 'Hamburg',
    });
    const msg = () => ({
      transferId: randomUUID(),
      vaspId: 'peer',
      asset: 'ETH',
      chain: 'ethereum',
      amount: '1.25',
      originator: party('Otto', 'Orlov', '0xabc'),
      beneficiary: party('Bea', 'Berger', WALLET),
      originatorVasp: { name: 'VASP A', lei: '5493001KJTIIGC8Y1R12', country: 'DE' },
    });
    // The floor: the same body, built once, posted raw.
    const m = msg();
    const body = inquiryJson({
      asset: { dti: 'X9J9K872S' },
      amount: '1250000000000000000',
      callback: adapter.url('r', m.transferId),
      IVMS101: toIvms(m),
    });
    const raw = () =>
      request(inquiryUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'api-version': '3.2.1',
          'request-identifier': randomUUID(),
        },
        body,
      }).then(async (r) => {
        await r.body.text();
        return r.statusCode === 200;
      });
    const via = () => adapter.send(msg()).then(() => true);
    await closedLoop('warm-up', 2, raw);
    await closedLoop('warm-up', 2, via);
    const best = (a: Measured, b: Measured) => (a.rps >= b.rps ? a : b);
    // Twice each, alternating; the better run counts (the machine's speed drifts).
    const r1 = await closedLoop('raw POST inquiry (undici)', DURATION, raw);
    const a1 = await closedLoop('inquiry through the TRP adapter', DURATION, via);
    const r2 = await closedLoop('raw POST inquiry (undici)', DURATION, raw);
    const a2 = await closedLoop('inquiry through the TRP adapter', DURATION, via);
    const floor = best(r1, r2);
    const adapterM = best(a1, a2);
    printTable([floor], [{ ...adapterM, floor }]);
    console.log(
      `inquiry: adapter overhead ${(floor.rps / adapterM.rps).toFixed(2)}x the raw call's time at equal concurrency (p50 ${adapterM.p50} vs ${floor.p50} ms)`,
    );
    return [floor, adapterM];
  } finally {
    await stopChild(peer);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runTrpBench();
}
