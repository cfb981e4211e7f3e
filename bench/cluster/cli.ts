/**
 * `npm run cluster -- --nodes 3 [--workers N] [--pgbouncer] [--client]`: starts the cluster harness
 * (bench/cluster/harness.ts) on the local PostgreSQL, prints the load balancer's address (and, with
 * `--client`, a sandbox client's API token), and runs until Ctrl-C, which stops every process and
 * drops the cluster's database.
 */
import { parseArgs } from 'node:util';
import { clusterClient, startCluster } from './harness';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '3' },
    workers: { type: 'string' },
    pgbouncer: { type: 'boolean', default: false },
    client: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
  },
});
const nodes = Number(values.nodes);
if (!Number.isInteger(nodes) || nodes < 1 || nodes > 16) throw new Error('--nodes must be 1-16');
const cluster = await startCluster({
  nodes,
  ...(values.workers !== undefined ? { workerNodes: Number(values.workers) } : {}),
  pgbouncer: values.pgbouncer,
  ...(values['database-url'] ? { adminUrl: values['database-url'] } : {}),
  log: (line) => console.log(line),
});
for (const n of cluster.nodes) console.log(`${n.name}: ${n.url} (workers ${n.workers ? 'on' : 'off'})`);
console.log(`load balancer: ${cluster.url}`);
if (values.client) {
  const c = await clusterClient(cluster);
  console.log(
    `SVC_API_URL=${cluster.url}/api/v1\nSVC_TOKEN=${c.token}\nSVC_PROJECT_ID=${c.projectId}\nSVC_USER_ID=${c.userId}`,
  );
}
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('stopping the cluster');
  await cluster.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
