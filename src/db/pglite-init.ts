/**
 * First start on an empty embedded-database directory. PGlite creates the cluster (initdb) in
 * WebAssembly instances of its own, about 250 MB beside the database's own 189 MB; once initdb is
 * done they are garbage, but V8 frees them only at a full collection, which a quiet service may not
 * run for a long time, and the allocator keeps part of it even then. Measured on the built service:
 * 850-970 MB resident right after a first start against 410-450 MB after any later start. So the
 * first start creates the cluster and applies the migrations in a short-lived child process, and the
 * service then opens a ready directory like on every later start (about 2 s more, once).
 *
 * Run as a script (`node pglite-init.js <pgdata dir>`), this module is that child.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

/** Whether PostgreSQL's cluster exists in `pgdata` (initdb writes PG_VERSION first). */
export function clusterExists(pgdata: string): boolean {
  return fs.existsSync(path.join(pgdata, 'PG_VERSION'));
}

/**
 * Creates and migrates the cluster in `pgdata` in a child process when there is none; a no-op
 * otherwise. The child runs with this process's node flags (the tsx loader under `npm run dev`).
 */
export async function initializeDataDirOutOfProcess(pgdata: string): Promise<boolean> {
  if (clusterExists(pgdata)) return false;
  const child = spawn(process.execPath, [...process.execArgv, SELF, pgdata], {
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0)
    throw new Error(`Could not create the embedded database in ${pgdata} (exit ${code}): ${stderr.trim()}`);
  return true;
}

async function initializeHere(pgdata: string): Promise<void> {
  const { openPglite } = await import('./client');
  const database = await openPglite({ dataDir: pgdata });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
}

if (process.argv[1] === SELF) {
  initializeHere(process.argv[2]!).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
