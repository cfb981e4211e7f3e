/**
 * `npm run bench`: every benchmark of the service in sequence. Each lives in its own file and
 * exports a function; this runner prints their one-line results.
 */
import { formatDeliveryBench, runDeliveryBenchSuite } from './delivery';

for (const r of await runDeliveryBenchSuite()) console.log(formatDeliveryBench(r));
