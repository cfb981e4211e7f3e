import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import type { Database, Db } from '../db/client';
import { adminCommands } from '../modules/admin/admin.cli';
import { billingCommands } from '../modules/billing/billing.cli';
import type { Clock } from '../shared/clock';
import type { Secrets } from '../shared/crypto';
import { devCommands } from './dev.cli';
import { sandboxCommands } from './sandbox.cli';

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

/** Every command by its full name (e.g. "admin create-staff"); features add theirs here. */
export const commands: Record<string, CliCommand> = {
  migrate: {
    summary: 'Apply pending database migrations (also done at every start)',
    usage: '',
    details: 'Opens the configured database (DATABASE_URL, else the embedded one in SVC_DATA_DIR).',
    async run(ctx) {
      ctx.out(`migrations applied (${ctx.database.engine})`);
    },
  },
  ...adminCommands,
  ...billingCommands,
  ...sandboxCommands,
  ...devCommands,
};
