/**
 * The `svc` command line (`npx svc <command>` or `npm run svc -- <command>`).
 * Commands register themselves in `commands`; each gets parsed argv and a lazily opened context.
 * `--help` (or `-h`) on any command prints that command's usage and exits 0 before anything is
 * read or opened: no configuration, database, network or files.
 */
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/client';
import { createLogger } from '../logger';
import { systemClock } from '../shared/clock';
import { loadSecrets } from '../shared/secrets-store';
import type { CliCommand, CliContext } from './command';
import { commands } from './commands';

/** Where the CLI writes; `exit` codes follow sysexits (64 usage, 78 configuration). */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  svc ${name.padEnd(34)} ${c.summary}`);
  return `Usage:\n${lines.join('\n')}\n\nsvc <command> --help shows one command's usage.\n`;
}

/** One command's usage: its synopsis, summary and details. */
export function commandHelp(name: string, cmd: CliCommand): string {
  const synopsis = `Usage: svc ${name}${cmd.usage ? ` ${cmd.usage}` : ''}`;
  return `${[synopsis, '', cmd.summary, ...(cmd.details ? ['', cmd.details] : [])].join('\n')}\n`;
}

const wantsHelp = (argv: string[]) => argv.includes('--help') || argv.includes('-h');

/** The command named by the first words of argv (longest match), and how many words it used. */
export function findCommand(argv: string[]): { name: string; cmd: CliCommand; used: number } | null {
  const words = argv.filter((a) => !a.startsWith('--'));
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    const cmd = commands[name];
    if (cmd) return { name, cmd, used: n };
  }
  return null;
}

/** Runs one command line; resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const found = findCommand(argv);
  if (!found) {
    io.out(usage());
    return argv.length === 0 || wantsHelp(argv) ? 0 : 64;
  }
  const { name, cmd, used } = found;
  if (wantsHelp(argv)) {
    io.out(commandHelp(name, cmd));
    return 0;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`${err.message}\n`);
      return 78;
    }
    throw err;
  }
  const words = argv.filter((a) => !a.startsWith('--'));
  const rest = argv.slice(argv.indexOf(words[used - 1]!) + 1);
  const out = (line: string) => io.out(`${line}\n`);
  if (cmd.overHttp) {
    // No database, clock or secrets: an overHttp command reads only config, out and log.
    await cmd.run({ config, out, log: createLogger('warn') } as unknown as CliContext, rest);
    return Number(process.exitCode ?? 0);
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
      out,
    };
    await cmd.run(ctx, rest);
  } finally {
    await database.close();
  }
  return Number(process.exitCode ?? 0);
}
