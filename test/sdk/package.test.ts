/**
 * The SDK as a merchant installs it: `npm pack` (which builds dist/), a fresh project in a temp
 * directory that installs the tarball, then the same program three ways against a started app:
 * compiled with plain `tsc` (module NodeNext) and run with `node` as ESM, required from a CommonJS
 * file, and bundled with esbuild. Each creates a payment link through the credential exchange, finds
 * it by paginating, and verifies a real webhook delivery into a narrowed event.
 * Slow (a build and an install): it runs once, on one engine.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDeliveryDispatcher } from '../../src/outbox/dispatcher';
import type { TestContext } from '../helpers/app';
import type { Receiver } from '../helpers/receiver';
import { startSdkWorld } from '../helpers/sdk-world';
import type { PaymentWorld } from '../payments/fixtures';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');
const sdkDir = path.join(repo, 'packages/sdk');
const fixture = path.join(import.meta.dirname, 'package-fixture');

let tmp: string;
let ctx: TestContext;
let receiver: Receiver;
let world: PaymentWorld;
let baseUrl: string;
let credential: { api_key: string; api_secret: string };
let webhookSecret: string;
const log: string[] = [];

async function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const { stdout, stderr } = await run(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  log.push(`$ ${cmd} ${args.join(' ')}\n${stdout}${stderr}`);
  return stdout;
}

/**
 * Installs the tarball as a merchant would (`npm install <tarball>`): from npm's cache alone, else
 * with the registry for what the cache lacks (a lockfile install caches tarballs, not the package
 * metadata), else, offline and uncached, by extracting it and linking the repository's copies of
 * its dependencies. The output says which.
 */
async function installTarball(tarball: string) {
  for (const mode of ['--offline', '--prefer-offline']) {
    try {
      await sh('npm', ['install', tarball, mode, '--no-audit', '--no-fund', '--ignore-scripts'], tmp);
      console.info(`sdk package test: tarball installed with npm install ${mode}`);
      return;
    } catch (err) {
      log.push(`npm install ${mode} failed: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  console.info(
    'sdk package test: npm install failed (offline, no cache); tarball extracted, dependencies linked',
  );
  const dest = path.join(tmp, 'node_modules/@svc/sdk');
  fs.mkdirSync(dest, { recursive: true });
  await sh('tar', ['-xzf', tarball, '-C', dest, '--strip-components=1'], tmp);
  for (const dep of ['openapi-fetch', 'openapi-typescript-helpers'])
    fs.symlinkSync(path.join(repo, 'node_modules', dep), path.join(tmp, 'node_modules', dep), 'dir');
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sdk-consumer-'));
  const packed = JSON.parse(await sh('npm', ['pack', '--json', '--pack-destination', tmp], sdkDir)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const files = packed[0]!.files.map((f) => f.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'dist/esm/index.js',
      'dist/esm/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'dist/esm/generated/schema.d.ts',
      'README.md',
      'package.json',
    ]),
  );
  expect(files.some((f) => f.startsWith('src/'))).toBe(false);

  fs.writeFileSync(
    path.join(tmp, 'package.json'),
    JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  await installTarball(path.join(tmp, packed[0]!.filename));
  // The compiler and Node's types come from the repository (no registry needed).
  for (const dep of ['typescript', '@types/node']) {
    fs.mkdirSync(path.dirname(path.join(tmp, 'node_modules', dep)), { recursive: true });
    fs.symlinkSync(path.join(repo, 'node_modules', dep), path.join(tmp, 'node_modules', dep), 'dir');
  }
  fs.mkdirSync(path.join(tmp, 'src'));
  fs.copyFileSync(path.join(fixture, 'program.ts'), path.join(tmp, 'src/program.ts'));
  fs.copyFileSync(path.join(fixture, 'program.cjs'), path.join(tmp, 'program.cjs'));
  // CommonJS TypeScript: the `require` types (dist/cjs) must compile too, narrowing included.
  fs.writeFileSync(
    path.join(tmp, 'src/require-check.cts'),
    [
      "import sdk = require('@svc/sdk');",
      "const client: sdk.SvcClient = sdk.createClient({ baseUrl: 'http://localhost', apiKey: 'k', apiSecret: 's' });",
      'export function statusOf(event: sdk.WebhookEvent): string {',
      "  return event.type === 'payment.status_changed' ? event.data.current_payment_status : event.type;",
      '}',
      'export const api = client;',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(tmp, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        types: ['node'],
        outDir: 'out',
        rootDir: 'src',
      },
      include: ['src'],
    }),
  );

  ({ ctx, baseUrl, world, credential, receiver, webhookSecret } = await startSdkWorld('sdk package test'));
}, 600_000);

afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A real delivery of a succeeded payment, written where the programs read it. */
async function captureDelivery(): Promise<{ file: string; eventId: string }> {
  const link = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...world.caller.headers, 'x-idempotency-key': crypto.randomUUID() },
    payload: { amount: '7.00', currency: 'EUR', project_id: world.projectId, user_id: world.userId },
  });
  expect(link.statusCode, link.body).toBe(201);
  const txId = link.json().transaction_id as string;
  const sim = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/sandbox/transactions/${txId}/simulate`,
    headers: world.caller.headers,
    payload: { outcome: 'success' },
  });
  expect(sim.statusCode, sim.body).toBe(200);
  const dispatcher = createDeliveryDispatcher(ctx.deps);
  await dispatcher.drain();
  await dispatcher.close();
  const final = receiver
    .on('/hook')
    .find((r) => JSON.parse(r.rawBody).data.transaction_id === txId && r.rawBody.includes('"success"'));
  expect(final).toBeDefined();
  const file = path.join(tmp, 'hook.json');
  fs.writeFileSync(
    file,
    JSON.stringify({ body: final!.rawBody, headers: final!.headers, secret: webhookSecret }),
  );
  return { file, eventId: JSON.parse(final!.rawBody).id };
}

it('a fresh project compiles with tsc (NodeNext), runs as ESM and CommonJS, and bundles', async () => {
  const tsc = path.join(tmp, 'node_modules/typescript/bin/tsc');
  await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], tmp);
  expect(fs.existsSync(path.join(tmp, 'out/require-check.cjs'))).toBe(true);
  const { build } = await import('esbuild');
  await build({
    absWorkingDir: tmp,
    entryPoints: ['src/program.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: 'bundle/program.mjs',
    logLevel: 'silent',
  });
  const bundled = fs.readFileSync(path.join(tmp, 'bundle/program.mjs'), 'utf8');
  expect(bundled).toContain('verifyWebhookSignature');
  expect(bundled).not.toMatch(/from ["']@svc\/sdk["']/);

  const hook = await captureDelivery();
  const env = {
    SVC_URL: baseUrl,
    SVC_API_KEY: credential.api_key,
    SVC_API_SECRET: credential.api_secret,
    SVC_PROJECT_ID: world.projectId,
    SVC_USER_ID: world.userId,
    SVC_HOOK_FILE: hook.file,
  };
  const runners: [string, string][] = [
    ['esm', 'out/program.js'],
    ['cjs', 'program.cjs'],
    ['bundle', 'bundle/program.mjs'],
  ];
  const txIds = new Set<string>();
  for (const [runner, file] of runners) {
    const out = await sh(process.execPath, [file], tmp, { ...env, SVC_RUNNER: runner });
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(result, log.join('\n')).toMatchObject({
      runner,
      listed: 1,
      event_id: hook.eventId,
      status: 'success',
    });
    txIds.add(result.transaction_id);
  }
  expect(txIds.size).toBe(3);
  // The links were made by the programs, through the API credential (metadata names the runner).
  for (const id of txIds) {
    const tx = await ctx.app.inject({ url: `/api/v1/transactions/${id}`, headers: world.caller.headers });
    expect(tx.statusCode).toBe(200);
  }
}, 300_000);
