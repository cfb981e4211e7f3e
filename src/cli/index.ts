/**
 * The `svc` command line (`npx svc <command>` or `npm run svc -- <command>`).
 * Commands register themselves in `commands`; each gets parsed argv and a lazily opened context.
 */
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/client';
import { createLogger } from '../logger';
import { systemClock } from '../shared/clock';
import { loadSecrets } from '../shared/secrets-store';
import { type CliCommand, type CliContext, commands } from './commands';

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  svc ${name.padEnd(34)} ${c.summary}`);
  return `Usage:\n${lines.join('\n')}\n`;
}

async function main(argv: string[]) {
  const words = argv.filter((a) => !a.startsWith('--'));
  let cmd: CliCommand | undefined;
  let used = 0;
  for (let n = Math.min(words.length, 3); n > 0 && !cmd; n--) {
    cmd = commands[words.slice(0, n).join(' ')];
    used = n;
  }
  if (!cmd) {
    process.stdout.write(usage());
    process.exit(argv.length === 0 || argv.includes('--help') ? 0 : 64);
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const rest = argv.slice(argv.indexOf(words[used - 1]!) + 1);
  if (cmd.overHttp) {
    const out = (line: string) => process.stdout.write(`${line}\n`);
    // No database, clock or secrets: an overHttp command reads only config, out and log.
    await cmd.run({ config, out, log: createLogger('warn') } as unknown as CliContext, rest);
    return;
  }
  const database = await openDatabase(config);
  try {
    await database.migrate();
    const ctx: CliContext = {
      config,
      database,
      db: database.db,
      clock: systemClock,
      secrets: loadSecrets(config),
      log: createLogger('warn'),
      out: (line: string) => process.stdout.write(`${line}\n`),
    };
    await cmd.run(ctx, rest);
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
