/**
 * `npm run bench`: every benchmark of the service in sequence: the API against its floor routes
 * (payment creation, reads and lists, login), webhook delivery (status change to 2xx at a
 * receiver; the paced run at the measured payment creation rate), bulk payment links, and bank
 * choice through the Token.io adapter against its raw HTTP call, and the held-payment re-read
 * sweep against its GETs (bench/tokenio.ts), and the sanctions lists at their real sizes (load time,
 * memory, match time per name against an exact lookup; bench/sanctions.ts), and the cluster harness
 * (one node against three, through PgBouncer, unnamed statements; bench/cluster/bench.ts).
 */
import { runApiBench } from './api';
import { formatBulkBench, runBulkBench } from './bulk';
import { formatClusterBench, runClusterBench } from './cluster/bench';
import { formatDeliveryBench, runDeliveryBenchSuite } from './delivery';
import { formatSanctionsBench, runSanctionsBench } from './sanctions';
import { formatSumsubBench, formatSumsubRecheckBench, runSumsubBench, runSumsubRecheckBench } from './sumsub';
import { runHeldReadBench, runTokenioBench } from './tokenio';

console.log(`## API (${new Date().toISOString()})\n`);
const api = await runApiBench();
console.log('\n## Webhook delivery\n');
process.env.BENCH_RATE ??= String(Math.max(10, Math.round(api.paymentCreationRps)));
const delivery = await runDeliveryBenchSuite();
for (const r of delivery) console.log(formatDeliveryBench(r));
const [max, drain] = delivery;
if (api.paymentCreationRps > 0)
  for (const r of [max, drain].filter((x) => x !== undefined))
    console.log(
      `\ndelivery (${r.mode.split(',')[0]}) ${r.eventsPerSecond.toFixed(0)} events/s = ${(r.eventsPerSecond / api.paymentCreationRps).toFixed(2)}x the payment creation rate (${api.paymentCreationRps.toFixed(0)} req/s)`,
    );
console.log('\n## Bulk payment links\n');
const bulk = await runBulkBench();
console.log('\n| Engine | Rows per job | Jobs | Best (s) | Worst (s) | rows/s |');
console.log('|---|---:|---:|---:|---:|---:|');
console.log(formatBulkBench(bulk));
console.log('\n## Sumsub adapter overhead\n');
console.log(formatSumsubBench(await runSumsubBench()));
console.log('\n## Sumsub approved re-check sweep\n');
console.log(formatSumsubRecheckBench(await runSumsubRecheckBench()));
console.log('\n## Bank choice through the Token.io adapter (against the stand-in)\n');
await runTokenioBench();
console.log('\n## Held-payment re-read sweep (Token.io)\n');
await runHeldReadBench();
console.log('\n## Sanctions lists at their real sizes\n');
console.log(formatSanctionsBench(await runSanctionsBench()));
console.log('\n## Cluster: one node, three nodes, PgBouncer, unnamed statements\n');
console.log(formatClusterBench(await runClusterBench()));
console.log(`\nAPI service peak RSS: ${api.peakRssMb ?? 'n/a'} MB`);
