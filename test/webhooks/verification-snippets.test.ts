/**
 * The verification code of docs/guides/webhooks.md works on a real delivery: the fenced blocks
 * marked `verify=svc` (the X-SVC-* scheme) and `verify=standard` (Standard Webhooks) are extracted
 * and run with their interpreter (node, python3, go, php, ruby, sh + openssl) against a delivery the
 * dispatcher just POSTed to a local receiver: each must print `valid` for it and `invalid` (exit 1)
 * for the same delivery with one byte of the body changed. An interpreter that is not installed is
 * reported and its snippet skipped (CI installs php and ruby; go only runs where it is present).
 * The guide's event reference must be current and cover every event type.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryDispatcher } from '../../src/outbox/dispatcher';
import { EVENT_TYPES, SYSTEM_EVENT_TYPES } from '../../src/outbox/event-types';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { type ReceivedRequest, type Receiver, startReceiver } from '../helpers/receiver';
import { emitTestEvent, setMainWebhook } from '../helpers/webhooks';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');
const GUIDE = path.join(repo, 'docs/guides/webhooks.md');
const guide = fs.readFileSync(GUIDE, 'utf8');

interface Snippet {
  lang: string;
  scheme: 'svc' | 'standard';
  code: string;
}

const snippets: Snippet[] = [...guide.matchAll(/^```(\w+) verify=(svc|standard)\n([\s\S]*?)^```$/gm)].map(
  (m) => ({ lang: m[1]!, scheme: m[2] as Snippet['scheme'], code: m[3]! }),
);

/** How each language runs: file extension, command, and the command that proves it is installed. */
const RUNNERS: Record<
  string,
  { ext: string; cmd: string; args: (file: string) => string[]; probe: string[] }
> = {
  js: { ext: '.mjs', cmd: process.execPath, args: (f) => [f], probe: ['--version'] },
  python: { ext: '.py', cmd: 'python3', args: (f) => [f], probe: ['--version'] },
  go: { ext: '.go', cmd: 'go', args: (f) => ['run', f], probe: ['version'] },
  php: { ext: '.php', cmd: 'php', args: (f) => [f], probe: ['--version'] },
  ruby: { ext: '.rb', cmd: 'ruby', args: (f) => [f], probe: ['--version'] },
  sh: { ext: '.sh', cmd: 'sh', args: (f) => [f], probe: ['-c', 'command -v openssl'] },
};
const installed = (lang: string) => {
  const r = RUNNERS[lang]!;
  return spawnSync(r.cmd, r.probe, { stdio: 'ignore' }).status === 0;
};

let ctx: TestContext;
let rx: Receiver;
let tmp: string;
let secret: string;
let delivery: ReceivedRequest;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-webhook-snippets-'));
  ctx = await createTestApp();
  rx = await startReceiver();
  const c = await createTestClient(ctx);
  await setMainWebhook(ctx, c.clientId, `${rx.url}/hook`);
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/subscription/secret',
    headers: c.headers,
  });
  expect(res.statusCode).toBe(200);
  secret = res.json().webhook_secret;
  // Non-ASCII in the body: the snippets must sign bytes, not re-encoded text.
  await emitTestEvent(ctx, c.clientId, 'payment.status_changed', {
    transaction_id: 'tx-snippets',
    amount: '12.50',
    metadata: { city: 'Zürich', note: 'café ✓' },
  });
  const dispatcher = createDeliveryDispatcher(ctx.deps);
  await dispatcher.drain();
  await dispatcher.close();
  delivery = rx.on('/hook')[0]!;
  expect(delivery).toBeDefined();
  fs.writeFileSync(path.join(tmp, 'body.json'), delivery.rawBody);
  fs.writeFileSync(path.join(tmp, 'tampered.json'), delivery.rawBody.replace('12.50', '12.51'));
});

afterAll(async () => {
  await rx?.close();
  await ctx?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function runSnippet(s: Snippet, index: number, bodyFile: string) {
  const r = RUNNERS[s.lang]!;
  // The Standard Webhooks example requires the library: CommonJS, found through NODE_PATH.
  const ext = s.lang === 'js' && s.scheme === 'standard' ? '.cjs' : r.ext;
  const file = path.join(tmp, `snippet-${index}${ext}`);
  fs.writeFileSync(file, s.code);
  const h = delivery.headers;
  const env = {
    ...process.env,
    SVC_WEBHOOK_SECRET: secret,
    WEBHOOK_BODY_FILE: bodyFile,
    WEBHOOK_ID: String(h['webhook-id']),
    WEBHOOK_TIMESTAMP: String(s.scheme === 'svc' ? h['x-svc-timestamp'] : h['webhook-timestamp']),
    WEBHOOK_SIGNATURE: String(s.scheme === 'svc' ? h['x-svc-signature'] : h['webhook-signature']),
    NODE_PATH: path.join(repo, 'node_modules'),
    GOCACHE: path.join(tmp, 'gocache'),
    GOPATH: path.join(tmp, 'gopath'),
    GOFLAGS: '-mod=mod',
  };
  try {
    const { stdout } = await run(r.cmd, r.args(file), { env, cwd: tmp, timeout: 120_000 });
    return { code: 0, out: stdout.trim() };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() };
  }
}

describe('verification snippets of docs/guides/webhooks.md', () => {
  it('has one for each language and scheme', () => {
    const kinds = snippets.map((s) => `${s.lang}:${s.scheme}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'js:svc',
        'python:svc',
        'go:svc',
        'php:svc',
        'ruby:svc',
        'sh:svc',
        'js:standard',
        'sh:standard',
      ]),
    );
    for (const s of snippets) expect(RUNNERS[s.lang], `no runner for ${s.lang}`).toBeDefined();
  });

  snippets.forEach((s, i) => {
    const present = installed(s.lang);
    if (!present)
      console.info(
        `verification-snippets: ${RUNNERS[s.lang]!.cmd} is not installed; the ${s.lang} snippet is skipped`,
      );
    it.runIf(present)(
      `${s.lang} (${s.scheme}) verifies a real delivery and refuses a tampered one`,
      async () => {
        const good = await runSnippet(s, i, path.join(tmp, 'body.json'));
        expect(good, good.out).toMatchObject({ code: 0 });
        expect(good.out).toMatch(/^valid\b/);
        const bad = await runSnippet(s, i, path.join(tmp, 'tampered.json'));
        expect(bad, bad.out).toMatchObject({ code: 1 });
        expect(bad.out).toMatch(/^invalid\b/);
      },
      180_000,
    );
  });
});

describe('event reference of docs/guides/webhooks.md', () => {
  it('is current (else: npm run docs:webhooks) and covers every event type', async () => {
    await run(process.execPath, [path.join(repo, 'scripts/docs-webhook-events.mjs'), '--check']);
    for (const type of [...EVENT_TYPES, ...SYSTEM_EVENT_TYPES]) expect(guide).toContain(`### \`${type}\``);
  });
});
