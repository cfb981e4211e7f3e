/**
 * `svc listen` and `svc trigger` as real processes against a started service: the credential comes
 * from `svc sandbox bootstrap`; listen forwards a triggered payment's events to a local receiver,
 * signed with the secret it printed (X-SVC-* and Standard Webhooks headers), and prints each event
 * with the receiver's answer.
 */
import type { ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isolatedServiceEnv, type ServiceProcess, spawnCaptured, startService } from '../helpers/process';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { signatureMatches } from '../helpers/webhooks';

let service: ServiceProcess;
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let receiver: Receiver;
let credentialEnv: Record<string, string>;
let listener: ChildProcess | undefined;

const svc = (args: string[], extraEnv: Record<string, string>) =>
  spawnCaptured(process.execPath, ['bin/svc.mjs', ...args], extraEnv);

async function run(args: string[], extraEnv: Record<string, string>) {
  const p = svc(args, extraEnv);
  const code = await p.exited;
  return { code, out: p.output() };
}

async function waitUntil(check: () => boolean, what: () => string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  ({ env, cleanup } = await isolatedServiceEnv());
  env.SVC_SANDBOX_OPCO_ACTIVATION_SECONDS = '1';
  service = await startService(env, undefined, { readyTimeoutMs: 150_000 });
  receiver = await startReceiver();
  const boot = await run(['sandbox', 'bootstrap', '--url', service.baseUrl], env);
  expect(boot.code, boot.out).toBe(0);
  credentialEnv = Object.fromEntries(
    [...boot.out.matchAll(/^export (SVC_[A-Z_]+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]),
  );
  expect(credentialEnv.SVC_API_KEY).toBeTruthy();
}, 300_000);

afterAll(async () => {
  listener?.kill('SIGTERM');
  service?.child.kill('SIGTERM');
  await service?.exited;
  await receiver?.close();
  await cleanup?.();
});

it('svc trigger --help lists the scenarios', async () => {
  const help = await run(['trigger', '--help'], env);
  expect(help.code, help.out).toBe(0);
  for (const name of [
    'payment.succeeded',
    'payment.failed',
    'payment.expired',
    'payment.canceled',
    'kyc.approved',
    'kyc.declined',
    'opco.activated',
    'refund.succeeded',
    'refund.failed',
  ])
    expect(help.out).toContain(name);
  const unknown = await run(['trigger', 'payment.nope'], { ...env, ...credentialEnv });
  expect(unknown.code).toBe(64);
  expect(unknown.out).toContain('unknown scenario payment.nope');
}, 120_000);

it('svc listen forwards a triggered payment, signed with the printed secret, and prints the results', async () => {
  const l = svc(['listen', '--forward-to', `${receiver.url}/hook`], { ...env, ...credentialEnv });
  listener = l.child;
  await waitUntil(
    () => /Ready! Your webhook signing secret is whsec_\S+/.test(l.output()),
    () => l.output(),
    120_000,
  );
  const secret = /Ready! Your webhook signing secret is (whsec_\S+)/.exec(l.output())![1]!;

  const trig = await run(['trigger', 'payment.succeeded'], { ...env, ...credentialEnv });
  expect(trig.code, trig.out).toBe(0);
  expect(trig.out).toContain('Trigger succeeded: payment.succeeded');
  const tx = /created transaction ([0-9a-f-]{36})/.exec(trig.out)![1]!;

  const ofTx = () =>
    receiver.on('/hook').filter((r) => {
      const e = JSON.parse(r.rawBody);
      return e.type === 'payment.status_changed' && e.data.transaction_id === tx;
    });
  await waitUntil(
    () => ofTx().some((r) => JSON.parse(r.rawBody).data.current_payment_status === 'success'),
    () => `${l.output()}\nreceived: ${receiver.requests.map((r) => r.rawBody).join('\n')}`,
  );
  for (const r of ofTx()) {
    expect(signatureMatches(secret, r)).toBe(true);
    expect(r.headers['x-svc-event-type']).toBe('payment.status_changed');
    const e = JSON.parse(r.rawBody);
    expect(r.headers['x-svc-event-id']).toBe(e.id);
    // The Standard Webhooks headers are forwarded too, keyed with the same printed secret.
    const flat = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
    expect((new Webhook(secret).verify(r.rawBody, flat) as { id: string }).id).toBe(e.id);
    expect(e.data.metadata).toEqual({ trigger: 'payment.succeeded' });
  }
  const final = ofTx().find((r) => JSON.parse(r.rawBody).data.current_payment_status === 'success')!;
  const id = JSON.parse(final.rawBody).id;
  await waitUntil(
    () => l.output().includes(`<-- [200] POST ${receiver.url}/hook`) && l.output().includes(id),
    () => l.output(),
    10_000,
  );
  expect(l.output()).toMatch(
    new RegExp(`\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  --> payment\\.status_changed \\[${id}\\]`),
  );
  expect(l.output()).toMatch(/\d\d:\d\d:\d\d {2}<-- \[200\] POST http:\/\/127\.0\.0\.1:\d+\/hook/);

  // Verification and opco scenarios reach the stream too.
  const kyc = await run(['trigger', 'kyc.approved'], { ...env, ...credentialEnv });
  expect(kyc.code, kyc.out).toBe(0);
  const opco = await run(['trigger', 'opco.activated'], { ...env, ...credentialEnv });
  expect(opco.code, opco.out).toBe(0);
  const opcoId = /opco ([0-9a-f-]{36}) is activated/.exec(opco.out)![1]!;
  await waitUntil(
    () =>
      receiver.requests.some((r) => {
        const e = JSON.parse(r.rawBody);
        return e.type === 'kyc.status_changed' && e.data.current_kyc_status === 'approved';
      }) &&
      receiver.requests.some((r) => {
        const e = JSON.parse(r.rawBody);
        return (
          e.type === 'opco.status_changed' &&
          e.data.opco_id === opcoId &&
          e.data.current_opco_status === 'activated'
        );
      }),
    () => `${l.output()}\nreceived: ${receiver.requests.map((r) => r.rawBody).join('\n')}`,
  );

  // A refund of a paid payment reaches the stream: refund.created, then refund.status_changed to succeeded.
  const refund = await run(['trigger', 'refund.succeeded'], { ...env, ...credentialEnv });
  expect(refund.code, refund.out).toBe(0);
  const refundId = /refund ([0-9a-f-]{36}) is succeeded/.exec(refund.out)![1]!;
  await waitUntil(
    () =>
      receiver.requests.some((r) => {
        const e = JSON.parse(r.rawBody);
        return e.type === 'refund.created' && e.data.refund_id === refundId;
      }) &&
      receiver.requests.some((r) => {
        const e = JSON.parse(r.rawBody);
        return (
          e.type === 'refund.status_changed' &&
          e.data.refund_id === refundId &&
          e.data.current_status === 'succeeded'
        );
      }),
    () => `${l.output()}\nreceived: ${receiver.requests.map((r) => r.rawBody).join('\n')}`,
  );

  l.child.kill('SIGINT');
  expect(await l.exited).toBe(0);
}, 300_000);
