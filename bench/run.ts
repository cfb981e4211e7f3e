/**
 * `npm run bench`: every benchmark of the service in sequence: the API (payment creation, reads
 * and lists over 100k transactions), webhook delivery (status change to 2xx at a receiver) and bulk
 * payment links (500-row jobs, POST to completed, rows/s).
 */
import { runApiBench } from './api';
import { formatBulkBench, runBulkBench } from './bulk';
import { formatDeliveryBench, runDeliveryBenchSuite } from './delivery';

console.log('## API\n');
await runApiBench();
console.log('\n## Webhook delivery\n');
for (const r of await runDeliveryBenchSuite()) console.log(formatDeliveryBench(r));
console.log('\n## Bulk payment links\n');
const bulk = await runBulkBench();
console.log('\n| Engine | Rows per job | Jobs | Best (s) | Worst (s) | rows/s |');
console.log('|---|---:|---:|---:|---:|---:|');
console.log(formatBulkBench(bulk));
