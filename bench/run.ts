/**
 * `npm run bench`: every benchmark of the service in sequence: the API (payment creation, reads
 * and lists over 100k transactions) and webhook delivery (status change to 2xx at a receiver).
 */
import { runApiBench } from './api';
import { formatDeliveryBench, runDeliveryBenchSuite } from './delivery';

console.log('## API\n');
await runApiBench();
console.log('\n## Webhook delivery\n');
for (const r of await runDeliveryBenchSuite()) console.log(formatDeliveryBench(r));
