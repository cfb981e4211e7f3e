/**
 * `svc admin ...`: the staff actions from the command line. Each command calls the same service
 * function as its admin API route, and prints the result as JSON.
 */

import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import type { CliCommand, CliContext } from '../../cli/command';
import { createProviders } from '../../providers/index';
import { FEATURES, type Feature } from '../features/features.service';
import { approveOpco, deactivateOpco, rejectOpco } from '../opcos/opco-review.service';
import { setProjectFrozen } from '../projects/projects.service';
import {
  type ClientSwitches,
  grantVisibilityGroups,
  revokeVisibilityGroups,
  updateClientSwitches,
  VISIBILITY_GROUPS,
  type VisibilityGroup,
} from './clients-admin.service';
import { isRegistrationEnabled, setRegistrationEnabled } from './platform-settings.service';
import { createStaff } from './staff.service';

export class UsageError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidArg(value: string | undefined, what: string): string {
  if (!value || !UUID.test(value)) throw new UsageError(`${what} must be a UUID`);
  return value;
}

function onOff(value: string | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (['on', 'true', 'yes', '1'].includes(value.toLowerCase())) return true;
  if (['off', 'false', 'no', '0'].includes(value.toLowerCase())) return false;
  throw new UsageError(`--${flag} must be on or off`);
}

/** `--feature <name> on|off`: the switch value follows the feature name as a positional. */
function featureArg(
  name: string | undefined,
  value: string | undefined,
): Partial<Record<Feature, boolean>> | null {
  if (name === undefined) return null;
  if (!(FEATURES as string[]).includes(name))
    throw new UsageError(`--feature must be one of: ${FEATURES.join(', ')}`);
  const on = onOff(value, 'feature');
  if (on === undefined) throw new UsageError('--feature <name> needs on or off');
  return { [name]: on };
}

function deps(ctx: CliContext) {
  const metrics = new Registry();
  return { ...ctx, providers: createProviders(ctx.config, ctx.secrets, { metrics, log: ctx.log }), metrics };
}

const print = (ctx: CliContext, value: unknown) => ctx.out(JSON.stringify(value, null, 2));

function groupsArg(values: string[]): VisibilityGroup[] {
  if (values.length === 0) throw new UsageError(`name at least one group: ${VISIBILITY_GROUPS.join(', ')}`);
  for (const g of values) {
    if (!(VISIBILITY_GROUPS as readonly string[]).includes(g)) {
      throw new UsageError(`unknown group "${g}" (groups: ${VISIBILITY_GROUPS.join(', ')})`);
    }
  }
  return values as VisibilityGroup[];
}

function opcoCommand(summary: string, run: typeof approveOpco): CliCommand {
  return {
    summary,
    usage: '<opco_id> [--reason R]',
    async run(ctx, args) {
      const { values, positionals } = parseArgs({
        args,
        options: { reason: { type: 'string' } },
        allowPositionals: true,
      });
      print(ctx, await run(deps(ctx), uuidArg(positionals[0], 'opco id'), values.reason ?? null));
    },
  };
}

function freezeCommand(summary: string, frozen: boolean): CliCommand {
  return {
    summary,
    usage: '<project_id> [--reason R]',
    async run(ctx, args) {
      const { values, positionals } = parseArgs({
        args,
        options: { reason: { type: 'string' } },
        allowPositionals: true,
      });
      print(
        ctx,
        await setProjectFrozen(ctx, uuidArg(positionals[0], 'project id'), frozen, values.reason ?? null),
      );
    },
  };
}

export const adminCommands: Record<string, CliCommand> = {
  'admin create-staff': {
    summary: 'Create a staff account: --email E --password P [--name N]',
    usage: '--email E --password P [--name N]',
    details: 'An existing e-mail (any case) is left unchanged.',
    async run(ctx, args) {
      const { values } = parseArgs({
        args,
        options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
      });
      if (!values.email || !values.password) throw new UsageError('--email and --password are required');
      const res = await createStaff(ctx, {
        email: values.email,
        password: values.password,
        fullName: values.name,
      });
      if (!res.created) ctx.out(`staff account ${res.staff.email} already exists (unchanged)`);
      print(ctx, res.staff);
    },
  },
  'admin set-client': {
    summary:
      'Client switches: <client_id> --production-access|--payment-links|--kyc-links|--active on|off, or <client_id> --feature <name> on|off',
    usage:
      '<client_id> [--production-access on|off] [--payment-links on|off] [--kyc-links on|off] [--active on|off]\n' +
      '       svc admin set-client <client_id> --feature <name> on|off',
    async run(ctx, args) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: {
          'production-access': { type: 'string' },
          'payment-links': { type: 'string' },
          'kyc-links': { type: 'string' },
          active: { type: 'string' },
          feature: { type: 'string' },
        },
      });
      const features = featureArg(values.feature, positionals[1]);
      const s: ClientSwitches = {
        ...(features ? { features } : {}),
        production_access_enabled: onOff(values['production-access'], 'production-access'),
        payment_links_enabled: onOff(values['payment-links'], 'payment-links'),
        kyc_links_enabled: onOff(values['kyc-links'], 'kyc-links'),
        is_active: onOff(values.active, 'active'),
      };
      if (Object.values(s).every((v) => v === undefined)) throw new UsageError('name at least one switch');
      print(ctx, await updateClientSwitches(ctx, uuidArg(positionals[0], 'client id'), s));
    },
  },
  'admin freeze-project': freezeCommand('Freeze a project: <project_id> [--reason R]', true),
  'admin unfreeze-project': freezeCommand('Unfreeze a project: <project_id> [--reason R]', false),
  'admin approve-opco': opcoCommand('Approve an opco: <opco_id> [--reason R]', approveOpco),
  'admin reject-opco': opcoCommand('Reject an opco: <opco_id> [--reason R]', rejectOpco),
  'admin deactivate-opco': opcoCommand('Deactivate an opco: <opco_id> [--reason R]', deactivateOpco),
  'admin grant-visibility': {
    summary: 'Grant verification visibility groups: <client_id> <group...>',
    usage: '<client_id> <group...>',
    details: `Groups: ${VISIBILITY_GROUPS.join(', ')}.`,
    async run(ctx, args) {
      const [clientId, ...groups] = args;
      print(ctx, await grantVisibilityGroups(ctx, uuidArg(clientId, 'client id'), groupsArg(groups)));
    },
  },
  'admin revoke-visibility': {
    summary: 'Revoke verification visibility groups: <client_id> <group...>',
    usage: '<client_id> <group...>',
    details: `Groups: ${VISIBILITY_GROUPS.join(', ')}.`,
    async run(ctx, args) {
      const [clientId, ...groups] = args;
      print(ctx, await revokeVisibilityGroups(ctx, uuidArg(clientId, 'client id'), groupsArg(groups)));
    },
  },
  'admin registration': {
    summary: 'Self-service registration: on|off|default',
    usage: 'on|off|default',
    details: '`default` follows the deployment (SVC_REGISTRATION_ENABLED).',
    async run(ctx, args) {
      const v = args[0];
      if (v !== 'default' && onOff(v, 'registration') === undefined)
        throw new UsageError('on, off or default');
      await setRegistrationEnabled(ctx.db, v === 'default' ? null : onOff(v, 'registration')!);
      print(ctx, { registration_enabled: await isRegistrationEnabled(ctx) });
    },
  },
};
