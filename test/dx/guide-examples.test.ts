/**
 * The guides' worked examples run as written against a started sandbox service, so a newcomer who
 * follows a guide gets what it shows: each guide's `## Worked example` shell blocks run in bash
 * (curl and jq) with the variables the quickstart defines (BASE, TOKEN, H, PROJECT, USER, taken from
 * `svc sandbox bootstrap` and the owner's login). No call may answer an error, and each guide's
 * example reaches the state it describes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedServiceEnv, type ServiceProcess, spawnCaptured, startService } from '../helpers/process';

const GUIDES = path.resolve(import.meta.dirname, '../../docs/guides');

/** What each example must print once it has run (beyond answering no error). */
const REACHES: Record<string, RegExp[]> = {
  payments: [/"status": "success"/, /"page_size": 10/],
  refunds: [/"refundable_amount": "0.00"/, /"refunded_amount": "15.53"/, /"amount": "24.47"/],
  verification: [/"status":"approved"/, /"verification_url"/],
  'opcos-projects': [/"project_name": "Web"/],
  workflows: [/"greeting": "hello Pat"/],
  contracts: [/request\.completed/],
  monitoring: [/"decision": "APPROVED"/],
  screening: [/"risk_level": "low"/, /"proof_url"/],
  'travel-rule': [/"status": "completed"/],
  recurring: [/"status":"active"/, /"runs"/],
  schedules: [/"status": "scheduled"/],
  'bulk-links': [/,created,/],
  tickets: [/"status":"closed"/],
  invoices: [/"status":"paid"/],
  notifications: [/"unread_count"/],
  'activity-logs': [/"action": "login\.succeeded"/],
  metadata: [/"order_id": "44"/],
};

/** The shell blocks under a guide's "## Worked example" heading. */
function example(slug: string): string {
  const doc = fs.readFileSync(path.join(GUIDES, `${slug}.md`), 'utf8');
  const at = doc.indexOf('## Worked example');
  expect(at, `${slug}.md has a worked example`).toBeGreaterThan(0);
  const rest = doc.slice(at);
  const next = rest.indexOf('\n## ', 3);
  return [...(next < 0 ? rest : rest.slice(0, next)).matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .join('\n');
}

let service: ServiceProcess;
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let prelude: string;
let work: string;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedServiceEnv());
  Object.assign(env, { SVC_SANDBOX_OPCO_ACTIVATION_SECONDS: '1', SVC_SANDBOX_ESIGN_AUTO_SECONDS: '1' });
  service = await startService(env, undefined, { readyTimeoutMs: 150_000 });
  const boot = spawnCaptured('node', ['bin/svc.mjs', 'sandbox', 'bootstrap', '--url', service.baseUrl], env);
  expect(await boot.exited, boot.output()).toBe(0);
  const exports = boot
    .output()
    .split('\n')
    .filter((l) => l.startsWith('export '))
    .join('\n');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-guide-examples-'));
  prelude = `${exports}
BASE=$SVC_API_URL
TOKEN=$(curl -sf $BASE/auth/login -H 'content-type: application/json' \\
  -d "{\\"client_email\\":\\"$SVC_OWNER_EMAIL\\",\\"password\\":\\"$SVC_OWNER_PASSWORD\\"}" | jq -r .access_token)
H="authorization: Bearer $TOKEN"
PROJECT=$SVC_PROJECT_ID
USER=$SVC_USER_ID
cd ${JSON.stringify(work)}
`;
  // The contract example signs a PDF of the reader's own: one blank page.
  const { PDFDocument } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  pdf.addPage();
  fs.writeFileSync(path.join(work, 'order.pdf'), await pdf.save());
}, 240_000);

afterAll(async () => {
  service?.child.kill('SIGTERM');
  await service?.exited;
  if (work) fs.rmSync(work, { recursive: true, force: true });
  await cleanup?.();
});

describe('worked examples of the guides', () => {
  it.each(Object.keys(REACHES))(
    '%s',
    async (slug) => {
      const file = path.join(work, `${slug}.sh`);
      fs.writeFileSync(file, `${prelude}\n${example(slug)}\n`);
      const run = spawnCaptured('timeout', ['90', 'bash', file], env);
      const code = await run.exited;
      const out = run.output();
      expect(code, out).toBe(0);
      expect(out, 'an error answer').not.toMatch(/"detail"|jq: error|parse error/);
      for (const re of REACHES[slug]!) expect(out).toMatch(re);
    },
    120_000,
  );
});
