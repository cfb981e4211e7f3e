/** Entry point: config -> secrets -> database (migrated) -> app -> workers; graceful shutdown on signals. */
import path from 'node:path';
import { buildApp } from './app';
import { assembleDeps } from './compose';
import { ConfigError, loadConfig } from './config';
import { openDatabase } from './db/client';
import { initializeDataDirOutOfProcess } from './db/pglite-init';
import { createLogger } from './logger';
import { createLocalMailer } from './providers/mail/local';
import { createSmtpMailer } from './providers/mail/smtp';
import { loadSecrets } from './shared/secrets-store';
import { runStartupTasks } from './startup';
import { createWorkers } from './workers/index';

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const secrets = loadSecrets(config);
  // A first start creates the embedded database in a child process (db/pglite-init.ts: initdb's memory).
  if (!config.databaseUrl && (await initializeDataDirOutOfProcess(path.join(config.dataDir, 'pgdata'))))
    log.info('embedded database created');
  const database = await openDatabase(config);
  await database.migrate();
  log.info({ engine: database.engine }, 'database ready, migrations applied');

  const mailer = config.smtpUrl
    ? createSmtpMailer(config.smtpUrl, config.mailFrom)
    : createLocalMailer(path.join(config.dataDir, 'mail'), config.mailFrom, log);
  if (config.environment === 'production' && config.localMail)
    log.warn(
      { dir: path.join(config.dataDir, 'mail') },
      'SVC_LOCAL_MAIL=true: mail is written to the data directory, not sent (a local try only, never real production)',
    );
  const deps = assembleDeps({ config, database, secrets, mailer, log });
  await runStartupTasks(deps);

  const app = await buildApp(deps);
  await app.listen({ port: config.port, host: config.host });
  const workers = config.workersEnabled ? createWorkers(deps) : [];
  for (const w of workers) w.start();
  log.info(
    { environment: config.environment, url: config.publicUrl, workers: workers.map((w) => w.name) },
    'service started',
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // SIGTERM (an orchestrator, a rolling deploy) drains first: readiness answers 503 and responses
    // close their connections while requests are still served, so the load balancer's health check
    // takes the node out before its listener closes. SIGINT (a terminal) skips the drain.
    const drainMs = signal === 'SIGTERM' ? config.shutdownDrainSeconds * 1000 : 0;
    const force = setTimeout(
      () => {
        log.error('graceful shutdown timed out, exiting');
        process.exit(1);
      },
      drainMs + config.shutdownTimeoutSeconds * 1000,
    );
    force.unref();
    try {
      if (drainMs > 0) {
        app.inflight.startDraining();
        log.info(
          { signal, drain_seconds: config.shutdownDrainSeconds },
          'draining: readiness is 503, still serving',
        );
        await new Promise((r) => setTimeout(r, drainMs));
      }
      log.info({ signal }, 'shutting down: no new requests, finishing in-flight work');
      await app.close(); // stops accepting, waits for open connections
      // Handlers of clients that disconnected may still be running: let them finish before the database closes.
      if (!(await app.inflight.drain(config.shutdownTimeoutSeconds * 500)))
        log.warn('shutdown: some requests did not finish');
      await Promise.all(workers.map((w) => w.stop()));
      await mailer.close?.();
      await database.close();
      log.info('shutdown complete');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  // Expected start-up failures (database locked or unreachable) read best as one line; the stack helps only when debugging.
  const detail =
    err instanceof Error ? (process.env.LOG_LEVEL === 'debug' ? err.stack : err.message) : String(err);
  process.stderr.write(`fatal: ${detail}\n`);
  process.exit(1);
});
