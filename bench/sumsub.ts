/**
 * `npm run bench:sumsub`: the Sumsub adapter's overhead over the raw HTTP calls, against the
 * stand-in on this machine, and the approved re-check sweep (runSumsubRecheckBench). Reading a result is the hot path (every webhook and reconciliation):
 * the adapter signs, goes through the upstream client (deadline, breaker, metrics) and maps the
 * applicant; the raw baseline signs and sends the same two GETs with undici over a keep-alive
 * agent (what the upstream client uses) and parses the JSON.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { recheckApprovedVerifications } from '../src/modules/kyc/reconcile.service';
import { SumsubVerificationProvider } from '../src/providers/verification/sumsub/adapter';
import { SumsubClient, signSumsubRequest } from '../src/providers/verification/sumsub/client';
import { api, createKycWorld, createLink } from '../test/kyc/fixtures';
import { startSumsubDeployment } from '../test/kyc/sumsub-fixtures';
import { startSumsubStandin } from '../test/standins/sumsub/server';
import { pct } from './dashboard';

const ROUNDS = Number(process.env.BENCH_SUMSUB_ROUNDS ?? 400);
const TOKEN = 'sbx:standin-app-token';
const SECRET = 'standin-secret-key';
const CHECKS = ['liveness', 'face_match', 'poa', 'aml', 'sof_questionnaire'];

export async function runSumsubBench() {
  const standin = await startSumsubStandin({ webhookUrl: null });
  try {
    const client = new SumsubClient(
      { apiUrl: standin.url, appToken: TOKEN, secretKey: SECRET, timeoutMs: 5000, maxAttempts: 1 },
      { metrics: new Registry(), log: pino({ level: 'silent' }) },
    );
    const adapter = new SumsubVerificationProvider(client, {
      levels: { enhanced: 'enhanced-kyc-level', 'kyb-standard': 'standard-kyb-level' },
      webhookSecret: 'x',
      websdkLinkTtlSeconds: 600,
    });
    const { providerRef } = await adapter.createSession({
      subject: { kind: 'kyc', firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com' },
      level: 'enhanced',
      checks: CHECKS,
      verificationId: '0190a1b2-0000-7000-8000-000000000001',
      subjectId: '0190a1b2-0000-7000-8000-000000000002',
    });
    const applicantId = providerRef.split(':')[0]!;
    await standin.control.decide(applicantId, 'approve');

    const agent = new Agent({ keepAliveTimeout: 10_000 });
    const raw = async () => {
      for (const path of [
        `/resources/applicants/${applicantId}/one`,
        `/resources/applicants/${applicantId}/requiredIdDocsStatus`,
      ]) {
        const ts = String(Math.floor(Date.now() / 1000));
        const res = await request(standin.url + path, {
          dispatcher: agent,
          headers: {
            'x-app-token': TOKEN,
            'x-app-access-ts': ts,
            'x-app-access-sig': signSumsubRequest(SECRET, ts, 'GET', path, undefined),
          },
        });
        await res.body.json();
      }
    };
    const viaAdapter = () => adapter.fetchResult(providerRef, { kind: 'kyc', checks: CHECKS });
    const time = async (fn: () => Promise<unknown>) => {
      const ms: number[] = [];
      for (let i = 0; i < 30; i++) await fn(); // warm-up
      for (let i = 0; i < ROUNDS; i++) {
        const t = performance.now();
        await fn();
        ms.push(performance.now() - t);
      }
      return { p50: pct(ms, 50), p95: pct(ms, 95) };
    };
    // Interleaved halves so a busy moment of the machine hits both sides alike.
    const rawA = await time(raw);
    const adA = await time(viaAdapter);
    const rawB = await time(raw);
    const adB = await time(viaAdapter);
    const rawP50 = (rawA.p50 + rawB.p50) / 2;
    const adP50 = (adA.p50 + adB.p50) / 2;
    return {
      rounds: ROUNDS * 2,
      raw: { p50: rawP50, p95: Math.max(rawA.p95, rawB.p95) },
      adapter: { p50: adP50, p95: Math.max(adA.p95, adB.p95) },
      ratio: adP50 / rawP50,
    };
  } finally {
    await standin.close();
  }
}

export function formatSumsubBench(r: Awaited<ReturnType<typeof runSumsubBench>>): string {
  return [
    '| Read a result (2 GETs) | p50 (ms) | p95 (ms) |',
    '|---|---:|---:|',
    `| raw signed request (undici) | ${r.raw.p50.toFixed(2)} | ${r.raw.p95.toFixed(2)} |`,
    `| adapter.fetchResult | ${r.adapter.p50.toFixed(2)} | ${r.adapter.p95.toFixed(2)} |`,
    '',
    `adapter / raw (p50): ${r.ratio.toFixed(2)}x over ${r.rounds} calls each`,
  ].join('\n');
}

/** A raw signed GET of the stand-in (the floor of a re-read: what any client must send). */
function rawReader(baseUrl: string, token: string, secret: string) {
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  return async (applicantId: string) => {
    for (const path of [
      `/resources/applicants/${applicantId}/one`,
      `/resources/applicants/${applicantId}/requiredIdDocsStatus`,
    ]) {
      const ts = String(Math.floor(Date.now() / 1000));
      const res = await request(baseUrl + path, {
        dispatcher: agent,
        headers: {
          'x-app-token': token,
          'x-app-access-ts': ts,
          'x-app-access-sig': signSumsubRequest(secret, ts, 'GET', path, undefined),
        },
      });
      await res.body.json();
    }
  };
}

const RECHECK_SUBJECTS = Number(process.env.BENCH_SUMSUB_RECHECK_SUBJECTS ?? 200);

/**
 * The approved re-check sweep (SVC_SUMSUB_RECHECK_APPROVED_SECONDS): a production deployment on
 * PGlite wired to the stand-in holds RECHECK_SUBJECTS approved users (each a link, approved by the
 * stand-in's signed webhook); a day later the sweep re-reads every one, in its rounds of 20 (a query
 * for the due links, per link: is it the subject's latest, the applicant and its steps from Sumsub,
 * the unchanged state compared in one transaction, the link's clock moved). Its floor is the raw
 * signed pair of GETs per link against the same stand-in: the ratio is what the sweep costs per link
 * over the calls it cannot avoid.
 */
export async function runSumsubRecheckBench() {
  const { ctx, standin } = await startSumsubDeployment();
  try {
    const w = await createKycWorld(ctx, { productionAccess: true });
    const applicants: string[] = [];
    for (let i = 0; i < RECHECK_SUBJECTS; i++) {
      const u = await api(ctx, 'POST', '/kyc/users', w.caller.headers, {
        email: `bench-${i}-${Date.now()}@example.com`,
        first_name: 'Bench',
        last_name: `Subject${i}`,
      });
      const userId = u.json().user_id as string;
      await createLink(ctx, { ...w, userId }, { level: 'basic' });
      const a = standin.control.byExternalUserId(`svc-kyc-${userId}`)!;
      await standin.control.decide(a.id, 'approve');
      applicants.push(a.id);
    }
    ctx.clock.advance(2 * 86400 * 1000);
    const rounds: number[] = [];
    let reread = 0;
    const t0 = performance.now();
    for (;;) {
      const t = performance.now();
      const n = await recheckApprovedVerifications(ctx.deps);
      if (n === 0) break;
      rounds.push(performance.now() - t);
      reread += n;
    }
    const sweepMs = performance.now() - t0;
    const raw = rawReader(standin.url, 'prd:standin-app-token', 'standin-secret-key');
    for (const id of applicants.slice(0, 20)) await raw(id); // warm-up
    const r0 = performance.now();
    for (const id of applicants) await raw(id);
    const rawMs = performance.now() - r0;
    const perLink = sweepMs / Math.max(1, reread);
    const rawPerLink = rawMs / applicants.length;
    return {
      subjects: applicants.length,
      reread,
      rounds: rounds.length,
      roundP50: pct(rounds, 50),
      roundMax: Math.max(...rounds),
      perLinkMs: perLink,
      rawPerLinkMs: rawPerLink,
      ratio: perLink / rawPerLink,
      linksPerSecond: (reread / sweepMs) * 1000,
    };
  } finally {
    await ctx.close();
    await standin.close();
  }
}

export function formatSumsubRecheckBench(r: Awaited<ReturnType<typeof runSumsubRecheckBench>>): string {
  return [
    '| Approved re-check sweep | links | rounds | round p50 (ms) | round max (ms) | ms per link | links/s | floor: raw 2 GETs per link (ms) | ratio |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${r.subjects} approved subjects | ${r.reread} | ${r.rounds} | ${r.roundP50.toFixed(1)} | ${r.roundMax.toFixed(1)} | ${r.perLinkMs.toFixed(2)} | ${r.linksPerSecond.toFixed(0)} | ${r.rawPerLinkMs.toFixed(2)} | ${r.ratio.toFixed(2)}x |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatSumsubBench(await runSumsubBench()));
  console.log('');
  console.log(formatSumsubRecheckBench(await runSumsubRecheckBench()));
}
