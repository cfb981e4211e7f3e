/**
 * The Documenso adapter's overhead (alone: `npm run bench:documenso`): against the Documenso stand-in
 * running in its own process, (1) the re-read a webhook triggers (`hosted.readEnvelope`: the platform
 * client's deadline, breaker and metrics, JSON parsing and the snapshot mapping) against its floor, the
 * same GET /envelope/{id} sent raw with undici; (2) the envelope of a send (`createEnvelope`: multipart
 * body, create, read back, recipients matched, distribute) against the same three calls sent raw.
 * The ratio is the adapter's cost over the HTTP calls themselves. Options (env): BENCH_DURATION (s,
 * default 10), BENCH_CONNECTIONS (calls in flight, default 10).
 */
import { spawn } from 'node:child_process';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import pino from 'pino';
import { Registry } from 'prom-client';
import { request } from 'undici';
import { createDocumenso } from '../src/providers/esign/documenso/index';
import { freePort } from './api';
import { createPayload, multipartBodyFor } from './documenso-fixtures';
import { type Measured, printTable, stopChild } from './report';
import { closedLoop } from './tokenio';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const API_KEY = 'api_standin0123456789abcdef';

async function pdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < 2; i++)
    doc.addPage([595.28, 841.89]).drawText(`Bench page ${i + 1}`, { x: 50, y: 780, font });
  return Buffer.from(await doc.save());
}

async function waitListening(url: string): Promise<void> {
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    const ok = await fetch(url, { headers: { authorization: API_KEY } }).then(
      (r) => r.status === 404,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

export async function runDocumensoBench(): Promise<{
  reread: [Measured, Measured];
  create: [Measured, Measured];
}> {
  const port = await freePort();
  const app = `http://127.0.0.1:${port}`;
  const api = `${app}/api/v2`;
  // The stand-in in its own process, so it does not share this process's CPU with the client.
  const standin = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/standins/documenso/server.ts', '--port', String(port)],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    await waitListening(`${api}/envelope/envelope_none`);
    const adapter = createDocumenso(
      {
        apiUrl: api,
        apiKey: API_KEY,
        webhookSecret: 'whsec-standin-0123456789abcdefghij',
        timeoutMs: 10000,
        maxAttempts: 3,
        maxRetryAfterMs: 5000,
        breakerFailures: 5,
        breakerCooldownMs: 30000,
        reconcileSeconds: 600,
      },
      { metrics: new Registry(), log: pino({ level: 'silent' }) },
    );
    const content = await pdf();
    let n = 0;
    const input = () => createPayload(`bench-${++n}`, content);
    const first = await adapter.createEnvelope(input());
    if (!first.accepted) throw new Error('the stand-in refused the bench envelope');
    const ref = first.ref;

    const rawGet = () =>
      request(`${api}/envelope/${ref}`, { headers: { authorization: API_KEY } }).then(async (r) => {
        const b = (await r.body.json()) as { status?: string };
        return r.statusCode === 200 && b.status === 'PENDING';
      });
    const viaReread = () => adapter.hosted.readEnvelope(ref).then((s) => s.status === 'pending');

    const rawCreate = async () => {
      const i = input();
      const { body, boundary } = multipartBodyFor(i);
      const c = await request(`${api}/envelope/create`, {
        method: 'POST',
        headers: { authorization: API_KEY, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body,
      });
      const { id } = (await c.body.json()) as { id: string };
      const g = await request(`${api}/envelope/${id}`, { headers: { authorization: API_KEY } });
      await g.body.json();
      const d = await request(`${api}/envelope/distribute`, {
        method: 'POST',
        headers: { authorization: API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ envelopeId: id, meta: { distributionMethod: 'NONE' } }),
      });
      await d.body.json();
      return c.statusCode === 200 && g.statusCode === 200 && d.statusCode === 200;
    };
    const viaCreate = () => adapter.createEnvelope(input()).then((r) => r.accepted);

    await closedLoop('warm-up', 2, rawGet);
    await closedLoop('warm-up', 2, viaReread);
    const best = (a: Measured, b: Measured) => (a.rps >= b.rps ? a : b);
    // Each scenario twice, alternating; the better run counts (the machine's speed drifts).
    const r1 = await closedLoop('raw GET /envelope/{id} (undici)', DURATION, rawGet);
    const a1 = await closedLoop('webhook re-read through the Documenso adapter', DURATION, viaReread);
    const r2 = await closedLoop('raw GET /envelope/{id} (undici)', DURATION, rawGet);
    const a2 = await closedLoop('webhook re-read through the Documenso adapter', DURATION, viaReread);
    const c1 = await closedLoop('raw create + get + distribute (undici)', DURATION, rawCreate);
    const e1 = await closedLoop('envelope of a send through the Documenso adapter', DURATION, viaCreate);
    const c2 = await closedLoop('raw create + get + distribute (undici)', DURATION, rawCreate);
    const e2 = await closedLoop('envelope of a send through the Documenso adapter', DURATION, viaCreate);
    const reread: [Measured, Measured] = [best(r1, r2), best(a1, a2)];
    const create: [Measured, Measured] = [best(c1, c2), best(e1, e2)];
    printTable(
      [reread[0], create[0]],
      [
        { ...reread[1], floor: reread[0] },
        { ...create[1], floor: create[0] },
      ],
    );
    for (const [floor, adapterM, what] of [
      [reread[0], reread[1], 're-read'],
      [create[0], create[1], 'envelope creation'],
    ] as const)
      console.log(
        `${what}: adapter overhead ${(floor.rps / adapterM.rps).toFixed(2)}x the raw calls' time at equal concurrency (p50 ${adapterM.p50} vs ${floor.p50} ms)`,
      );
    return { reread, create };
  } finally {
    await stopChild(standin);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runDocumensoBench();
}
