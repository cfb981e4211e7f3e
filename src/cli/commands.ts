/** Every command of `svc`; the types of a command are in command.ts (features import those, not this list). */
import { adminCommands } from '../modules/admin/admin-cli.service';
import { billingCommands } from '../modules/billing/billing-cli.service';
import { travelRuleCommands } from '../modules/travel-rule/trp-cli.service';
import type { CliCommand } from './command';
import { devCommands } from './dev.cli';
import { sandboxCommands } from './sandbox.cli';

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
  ...travelRuleCommands,
  ...sandboxCommands,
  ...devCommands,
};
