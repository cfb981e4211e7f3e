/**
 * A merchant's program using the packed @svc/sdk (test/sdk/package.test.ts compiles it with plain
 * tsc under NodeNext and bundles it with esbuild): exchanges the API credential, creates a payment
 * link, finds it by paginating, and verifies a captured webhook delivery into a narrowed event.
 * Prints one JSON line.
 */
import { readFileSync } from 'node:fs';
import { constructEvent, createClient, type WebhookEvent } from '@svc/sdk';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const hook = JSON.parse(readFileSync(env('SVC_HOOK_FILE'), 'utf8')) as {
  body: string;
  headers: Record<string, string>;
  secret: string;
};
const svc = createClient({
  baseUrl: env('SVC_URL'),
  apiKey: env('SVC_API_KEY'),
  apiSecret: env('SVC_API_SECRET'),
});
const link = await svc.createPaymentLink({
  amount: '3.10',
  currency: 'EUR',
  project_id: env('SVC_PROJECT_ID'),
  user_id: env('SVC_USER_ID'),
  metadata: { runner: env('SVC_RUNNER') },
});
let listed = 0;
for await (const tx of svc.paginate('/api/v1/transactions', { query: { page_size: 2 } }))
  if (tx.transaction_id === link.transaction_id) listed++;

const event: WebhookEvent = await constructEvent(hook.body, hook.headers, hook.secret);
let status: string;
switch (event.type) {
  case 'payment.status_changed':
    status = event.data.current_payment_status;
    break;
  default:
    status = `other:${event.type}`;
}
console.log(
  JSON.stringify({
    runner: env('SVC_RUNNER'),
    transaction_id: link.transaction_id,
    listed,
    event_id: event.id,
    status,
  }),
);
