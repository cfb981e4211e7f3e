// The same program as program.ts for a CommonJS project: require('@svc/sdk').
const { readFileSync } = require('node:fs');
const { constructEvent, createClient } = require('@svc/sdk');

async function main() {
  const env = process.env;
  const hook = JSON.parse(readFileSync(env.SVC_HOOK_FILE, 'utf8'));
  const svc = createClient({ baseUrl: env.SVC_URL, apiKey: env.SVC_API_KEY, apiSecret: env.SVC_API_SECRET });
  const link = await svc.createPaymentLink({
    amount: '3.10',
    currency: 'EUR',
    project_id: env.SVC_PROJECT_ID,
    user_id: env.SVC_USER_ID,
    metadata: { runner: env.SVC_RUNNER },
  });
  let listed = 0;
  for await (const tx of svc.paginate('/api/v1/transactions', { query: { page_size: 2 } }))
    if (tx.transaction_id === link.transaction_id) listed++;
  const event = await constructEvent(hook.body, hook.headers, hook.secret);
  const status =
    event.type === 'payment.status_changed' ? event.data.current_payment_status : `other:${event.type}`;
  console.log(
    JSON.stringify({
      runner: env.SVC_RUNNER,
      transaction_id: link.transaction_id,
      listed,
      event_id: event.id,
      status,
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
