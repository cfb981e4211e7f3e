/**
 * The cluster harness (docs/guides/scaling.md): N service processes (the compiled dist/server.js)
 * on one PostgreSQL database, HAProxy in front with health checks on /readyz, and nodes that run
 * the background workers or only serve the API (`SVC_WORKERS_ENABLED`). The cluster tests
 * (test/cluster) and `npm run cluster` use it.
 *
 * HAProxy's settings are the ones the scaling guide recommends: round robin, a check every 250 ms
 * that takes a node out after two failed checks (so the 503 of a draining node is seen well within
 * the drain; a check may take up to 1 s on a busy node), and retries on another node only when the request never reached a server or the
 * server closed the connection without an answer, and then only for reads and for writes carrying
 * an Idempotency-Key (a write without one may have been applied).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startScriptFlags, waitReady } from '../service-process';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ClusterOptions {
  /** Service processes behind the load balancer. */
  nodes: number;
  /** How many of them (the first ones) run the background workers; default all. */
  workerNodes?: number;
  /** PostgreSQL server to create the cluster's database on (default TEST_DATABASE_URL or the local one). */
  adminUrl?: string;
  /**
   * Nodes reach PostgreSQL through PgBouncer in transaction mode (Debian's 1.18, which does not
   * carry named prepared statements across transactions: the nodes run with
   * DATABASE_PREPARED_STATEMENTS=false).
   */
  pgbouncer?: boolean;
  /** Extra environment for every node. */
  env?: Record<string, string>;
  /**
   * Node.js options of every node (default: those of package.json's `start`, so a node runs as
   * `npm start` runs the service; the soak's comparison runs pass others).
   */
  nodeArgs?: string[];
  /** SVC_SHUTDOWN_DRAIN_SECONDS of each node (default 2: well above HAProxy's 250 ms × 2 checks). */
  drainSeconds?: number;
  /** A migrated database to copy (the suite's template), so the first node applies no migration. */
  templateDatabase?: string;
  /** Keep the database after stop (the CLI prints its URL). */
  keepDatabase?: boolean;
  log?: (line: string) => void;
}

export interface ClusterNode {
  name: string;
  port: number;
  url: string;
  workers: boolean;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export interface Cluster {
  /** The load balancer's address: what clients use. */
  url: string;
  nodes: ClusterNode[];
  databaseUrl: string;
  /** The data directory every node shares (local mail). */
  dataDir: string;
  /** The environment shared by every node (secrets, database, public URL). */
  env: Record<string, string>;
  /** Starts node i again (after it exited) and resolves once it is ready. */
  restart(i: number): Promise<ClusterNode>;
  /** Resolves once HAProxy reports node i up (or down, with `up: false`). */
  waitBalancer(i: number, up: boolean, timeoutMs?: number): Promise<void>;
  /** Every node's state as HAProxy sees it (`UP`, `DOWN`, ...). */
  balancerStates(): Promise<Record<string, string>>;
  /**
   * HAProxy's `show stat` row of each node, by column name (`status`, `chkfail`, `chkdown`,
   * `downtime`, `check_status`, `check_duration`, ...): why the balancer took a node out.
   */
  balancerStats(): Promise<Record<string, Record<string, string>>>;
  stop(): Promise<void>;
}

function build(): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT }, (err, _o, stderr) =>
      err ? reject(new Error(`build failed: ${stderr}`)) : resolve(),
    ),
  );
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

function haproxyConfig(dir: string, frontPort: number, nodes: { name: string; port: number }[]): string {
  return [
    'global',
    '  maxconn 4096',
    `  stats socket ${path.join(dir, 'haproxy.sock')} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-keep-alive 10s',
    // A check answered slowly by a busy node is not a failure; a draining node answers 503 at once.
    '  timeout check 1s',
    '  retries 3',
    '  option redispatch 1',
    // A request that never reached a node, or whose node closed without answering (killed), goes to
    // another node: reads always, writes only with an Idempotency-Key (the service replays or
    // resumes them; a write without a key may have been applied, so it is not sent twice).
    '  retry-on conn-failure empty-response',
    'frontend api',
    `  bind 127.0.0.1:${frontPort}`,
    '  http-request disable-l7-retry if !METH_GET !METH_HEAD !{ req.hdr(x-idempotency-key) -m found }',
    // Which node answered (the tests check a burst reached every node).
    '  http-response set-header x-svc-node %s',
    '  default_backend nodes',
    'backend nodes',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  default-server inter 250ms fastinter 250ms downinter 250ms fall 2 rise 1',
    ...nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.port} check`),
    '',
  ].join('\n');
}

function nodeReady(node: ClusterNode): Promise<void> {
  return waitReady(node.url, node.child, {
    timeoutMs: 90_000,
    pollMs: 100,
    describe: () => ` (${node.name}):\n${node.output().slice(-4000)}`,
  });
}

/** PgBouncer in transaction mode in front of the admin URL's server (it refuses to run as root). */
async function startPgbouncer(dir: string, adminUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const server = new URL(adminUrl);
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${server.username || 'postgres'}" ""\n`);
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  fs.chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  const child = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', 'pgbouncer', ini], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn('pgbouncer', [ini], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const url = `postgres://${server.username || 'postgres'}@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${err}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return { url, child };
    if (Date.now() > deadline) throw new Error(`pgbouncer did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const log = opts.log ?? (() => {});
  const adminUrl =
    opts.adminUrl ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  await build();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cluster-'));
  const dbName = `svc_cluster_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await adminQuery(
    adminUrl,
    `create database ${dbName}${opts.templateDatabase ? ` template ${opts.templateDatabase}` : ''}`,
  );
  const databaseUrl = withDatabase(adminUrl, dbName);
  const bouncer = opts.pgbouncer ? await startPgbouncer(dir, adminUrl) : null;
  const nodeDatabaseUrl = bouncer ? withDatabase(bouncer.url, dbName) : databaseUrl;
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  const frontPort = await freePort();
  const url = `http://127.0.0.1:${frontPort}`;
  const env: Record<string, string> = {
    DATABASE_URL: nodeDatabaseUrl,
    ...(bouncer ? { DATABASE_PREPARED_STATEMENTS: 'false' } : {}),
    SVC_JWT_SECRET: randomBytes(32).toString('hex'),
    SVC_DATA_KEY: randomBytes(32).toString('base64'),
    SVC_PUBLIC_URL: url,
    SVC_TRUST_PROXY: 'true',
    SVC_SHUTDOWN_DRAIN_SECONDS: String(opts.drainSeconds ?? 2),
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const workerNodes = opts.workerNodes ?? opts.nodes;
  const specs = await Promise.all(
    Array.from({ length: opts.nodes }, async (_, i) => ({
      name: `n${i + 1}`,
      port: await freePort(),
      workers: i < workerNodes,
    })),
  );
  const nodeArgs = opts.nodeArgs ?? startScriptFlags();
  const spawnNode = (i: number): ClusterNode => {
    const s = specs[i]!;
    const child = spawn(process.execPath, [...nodeArgs, 'dist/server.js'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        HOST: '127.0.0.1',
        PORT: String(s.port),
        // One data directory for all: on PostgreSQL it holds only the local mail folder, which the
        // sandbox bootstrap reads (an e-mail sent by any node).
        SVC_DATA_DIR: dataDir,
        SVC_WORKERS_ENABLED: String(s.workers),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { ...s, url: `http://127.0.0.1:${s.port}`, child, output: () => out, exited };
  };

  const nodes: ClusterNode[] = [];
  let haproxy: ChildProcess | null = null;
  const stop = async () => {
    haproxy?.kill('SIGTERM');
    bouncer?.child.kill('SIGTERM');
    await Promise.all(
      nodes.map(async (n) => {
        if (n.child.exitCode === null && n.child.signalCode === null) {
          n.child.kill('SIGINT'); // no drain when the whole cluster stops
          await n.exited;
        }
      }),
    );
    if (!opts.keepDatabase) await adminQuery(adminUrl, `drop database if exists ${dbName} with (force)`);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    // The first node applies the migrations; the others start on the migrated database.
    nodes.push(spawnNode(0));
    await nodeReady(nodes[0]!);
    for (let i = 1; i < opts.nodes; i++) nodes.push(spawnNode(i));
    await Promise.all(nodes.slice(1).map(nodeReady));
    const cfg = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(cfg, haproxyConfig(dir, frontPort, specs));
    haproxy = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
    let haproxyErr = '';
    haproxy.stderr!.on('data', (d) => {
      haproxyErr += d;
    });
    log(`cluster: ${opts.nodes} nodes (${workerNodes} with workers) behind ${url}, database ${databaseUrl}`);

    const balancerStats = async (): Promise<Record<string, Record<string, string>>> => {
      const csv = await new Promise<string>((resolve, reject) => {
        const sock = net.connect(path.join(dir, 'haproxy.sock'));
        let data = '';
        sock.on('data', (d) => {
          data += d;
        });
        sock.on('end', () => resolve(data));
        sock.on('error', reject);
        sock.write('show stat\n');
      });
      const lines = csv.split('\n');
      const header = (lines[0] ?? '').replace(/^# /, '').split(',');
      const stats: Record<string, Record<string, string>> = {};
      for (const line of lines.slice(1)) {
        const cols = line.split(',');
        if (cols[0] === 'nodes' && cols[1] && cols[1] !== 'BACKEND')
          stats[cols[1]] = Object.fromEntries(header.map((h, k) => [h, cols[k] ?? '']));
      }
      return stats;
    };
    const balancerStates = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        Object.entries(await balancerStats()).map(([name, row]) => [name, row.status ?? '']),
      );
    const waitBalancer = async (i: number, up: boolean, timeoutMs = 15_000) => {
      const name = specs[i]!.name;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        let state = '';
        try {
          state = (await balancerStates())[name] ?? '';
        } catch {
          // the stats socket is not there yet
        }
        if (up ? state.startsWith('UP') : state.startsWith('DOWN')) return;
        if (haproxy?.exitCode != null) throw new Error(`haproxy exited: ${haproxyErr}`);
        if (Date.now() > deadline)
          throw new Error(`haproxy never saw ${name} ${up ? 'up' : 'down'} (${state})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    for (let i = 0; i < opts.nodes; i++) await waitBalancer(i, true);

    return {
      url,
      nodes,
      databaseUrl,
      dataDir,
      env,
      async restart(i) {
        const n = spawnNode(i);
        nodes[i] = n;
        await nodeReady(n);
        return n;
      },
      waitBalancer,
      balancerStates,
      balancerStats,
      stop,
    };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}

/** A sandbox client with an activated opco, a project, a payer and an API token, made through the balancer. */
export async function clusterClient(
  cluster: Cluster,
  opts: { webhookUrl?: string } = {},
): Promise<{
  token: string;
  projectId: string;
  userId: string;
  headers: Record<string, string>;
}> {
  const { sandboxBootstrap } = await import('../../src/cli/sandbox-bootstrap');
  const s = await sandboxBootstrap(
    { dataDir: cluster.dataDir },
    {
      baseUrl: cluster.url,
      ...(opts.webhookUrl ? { webhookUrl: opts.webhookUrl } : {}),
      returnUrl: 'https://shop.example.com/return',
      fresh: true,
      activationTimeoutMs: 60_000,
      log: () => {},
    },
  );
  const res = await fetch(`${cluster.url}/api/v1/auth/api-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: s.api_key, api_secret: s.api_secret }),
  });
  if (res.status !== 200) throw new Error(`api-token answered ${res.status}: ${await res.text()}`);
  const token = ((await res.json()) as { access_token: string }).access_token;
  return {
    token,
    projectId: s.project_id!,
    userId: s.user_id!,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  };
}
