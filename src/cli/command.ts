/** What a `svc` command is and what it runs with; the list of commands is commands.ts. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import type { Database, Db } from '../db/client';
import type { Clock } from '../shared/clock';
import type { Secrets } from '../shared/crypto';

export interface CliContext {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  secrets: Secrets;
  log: FastifyBaseLogger;
  out: (line: string) => void;
}

export interface CliCommand {
  summary: string;
  /** The arguments after the command's name, for `--help` (e.g. `--email E --password P [--name N]`). */
  usage: string;
  /** More lines for `--help`: what the command does, what it needs. */
  details?: string;
  /** `args` are the words and --flags after the command name. */
  run(ctx: CliContext, args: string[]): Promise<void>;
  /**
   * Set for commands that talk to a running service over HTTP: they get the configuration and
   * no database is opened (an embedded database is held by the running server).
   */
  overHttp?: boolean;
}
