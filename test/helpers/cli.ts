/**
 * The `svc` commands in-process over a test app's database, as the CLI tests run them: the same
 * context the CLI builds (config, database, clock, secrets, logger) with its output lines captured.
 */
import type { CliContext } from '../../src/cli/command';
import { findCommand } from '../../src/cli/main';
import type { TestContext } from './app';

export interface CliHarness {
  /** The lines the last command wrote. */
  out: string[];
  /** Runs `svc <words>` (the command named by the first words, longest match, as the CLI finds it); its output lines. */
  run(...words: string[]): Promise<string[]>;
}

export function cliHarness(ctx: TestContext): CliHarness {
  const out: string[] = [];
  const cli: CliContext = {
    config: ctx.config,
    database: ctx.deps.database,
    db: ctx.db,
    clock: ctx.clock,
    secrets: ctx.deps.secrets,
    log: ctx.deps.log,
    out: (line) => out.push(line),
  };
  return {
    out,
    async run(...words) {
      out.length = 0;
      const found = findCommand(words);
      if (!found) throw new Error(`no svc command for: ${words.join(' ')}`);
      await found.cmd.run(cli, words.slice(found.used));
      return out;
    },
  };
}
