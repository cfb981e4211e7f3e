/**
 * `svc admin invoice create|finalize|mark-paid|void`: the staff invoice actions from the command line,
 * calling the same service functions as the admin API and printing the invoice as JSON.
 */

import path from 'node:path';
import { parseArgs } from 'node:util';
import { Value } from 'typebox/value';
import type { CliCommand, CliContext } from '../../cli/command';
import type { Deps } from '../../deps';
import { isoDate, lastDateOfMonth, startOfMonth } from '../../platform/calendar';
import { createLocalMailer } from '../../providers/mail/local';
import { createSmtpMailer } from '../../providers/mail/smtp';
import { UsageError } from '../admin/admin-cli.service';
import { LineInput } from './billing.schemas';

// The services (and pdf-lib) load only when an invoice command runs, so other commands start as fast as before.
const invoices = () => import('./invoices.service');
const finalizer = () => import('./invoice-finalize.service');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function uuidArg(value: string | undefined, what: string): string {
  if (!value || !UUID.test(value)) throw new UsageError(`${what} must be a UUID`);
  return value;
}

/**
 * The service's dependencies for a command (the mailer is built like the server's; the workers send
 * mail), with the app's event bus: a command's changes get the same in-transaction reactions as the API's.
 */
async function cliDeps(ctx: CliContext): Promise<Deps> {
  // Imported when run: the composition imports every feature's manifest, this file among them.
  const { assembleDeps } = await import('../../compose');
  const mailer = ctx.config.smtpUrl
    ? createSmtpMailer(ctx.config.smtpUrl, ctx.config.mailFrom)
    : createLocalMailer(path.join(ctx.config.dataDir, 'mail'), ctx.config.mailFrom, ctx.log);
  return assembleDeps({ ...ctx, mailer });
}

const print = (ctx: CliContext, value: unknown) => ctx.out(JSON.stringify(value, null, 2));

/** The previous calendar month (UTC) of `now`. */
function previousMonth(now: Date): { start: string; end: string } {
  return { start: isoDate(startOfMonth(now, -1)), end: lastDateOfMonth(now, -1) };
}

export const billingCommands: Record<string, CliCommand> = {
  'admin invoice create': {
    summary:
      'Draft invoice: <client_id> --currency EUR (--from-usage | --lines JSON) [--period-start D --period-end D] ' +
      '[--due-in-days N] [--po P] [--tax-rate R]',
    usage:
      '<client_id> --currency EUR (--from-usage | --lines JSON) [--period-start YYYY-MM-DD --period-end YYYY-MM-DD]\n' +
      '       [--due-in-days N] [--po P] [--tax-rate R]',
    details:
      '--from-usage bills the period (default: the last calendar month) from recorded usage; --lines takes a\n' +
      'JSON array of {description, category, quantity, unit_amount, tax_rate?}. Prints the draft invoice.',
    async run(ctx, args) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: {
          currency: { type: 'string' },
          'from-usage': { type: 'boolean' },
          lines: { type: 'string' },
          'period-start': { type: 'string' },
          'period-end': { type: 'string' },
          'due-in-days': { type: 'string' },
          po: { type: 'string' },
          'tax-rate': { type: 'string' },
        },
      });
      const clientId = uuidArg(positionals[0], 'client id');
      if (!values.currency || !/^[A-Z]{3}$/.test(values.currency))
        throw new UsageError('--currency must be an ISO 4217 code such as EUR');
      if (!values['from-usage'] === !values.lines)
        throw new UsageError('give either --from-usage or --lines JSON');
      const month = previousMonth(ctx.clock.now());
      const periodStart = values['period-start'] ?? month.start;
      const periodEnd = values['period-end'] ?? month.end;
      if (!DATE.test(periodStart) || !DATE.test(periodEnd))
        throw new UsageError('--period-start and --period-end must be YYYY-MM-DD');
      let lines: unknown;
      if (values.lines) {
        try {
          lines = JSON.parse(values.lines);
        } catch {
          throw new UsageError(
            '--lines must be a JSON array of {description, category, quantity, unit_amount}',
          );
        }
        if (!Array.isArray(lines) || lines.length === 0 || !lines.every((l) => Value.Check(LineInput, l)))
          throw new UsageError(
            '--lines must be a non-empty JSON array of {description, category, quantity, unit_amount, tax_rate?}',
          );
      }
      const due = values['due-in-days'];
      if (due !== undefined && !/^\d{1,3}$/.test(due))
        throw new UsageError('--due-in-days must be a number of days');
      const { createDraftInvoice } = await invoices();
      print(
        ctx,
        await createDraftInvoice(ctx, {
          client_id: clientId,
          currency: values.currency,
          period_start: periodStart,
          period_end: periodEnd,
          ...(values['from-usage'] ? { from_usage: true } : { lines: lines as never }),
          ...(due !== undefined ? { due_in_days: Number(due) } : {}),
          ...(values.po ? { purchase_order_number: values.po } : {}),
          ...(values['tax-rate'] ? { tax_rate: values['tax-rate'] } : {}),
        }),
      );
    },
  },
  'admin invoice finalize': {
    summary: 'Finalize a draft invoice (number, PDF, email, payment link): <invoice_id>',
    usage: '<invoice_id>',
    async run(ctx, args) {
      const { finalizeInvoice } = await finalizer();
      print(ctx, await finalizeInvoice(await cliDeps(ctx), uuidArg(args[0], 'invoice id')));
    },
  },
  'admin invoice mark-paid': {
    summary: 'Mark an invoice paid: <invoice_id> [--reference R] [--paid-at ISO]',
    usage: '<invoice_id> [--reference R] [--paid-at ISO-8601]',
    async run(ctx, args) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { reference: { type: 'string' }, 'paid-at': { type: 'string' } },
      });
      const paidAt = values['paid-at'];
      if (paidAt !== undefined && Number.isNaN(Date.parse(paidAt)))
        throw new UsageError('--paid-at must be an ISO 8601 date-time');
      const { markInvoicePaid } = await invoices();
      print(
        ctx,
        await markInvoicePaid(await cliDeps(ctx), uuidArg(positionals[0], 'invoice id'), {
          reference: values.reference,
          paid_at: paidAt ? new Date(paidAt).toISOString() : undefined,
        }),
      );
    },
  },
  'admin invoice void': {
    summary: 'Void an invoice: <invoice_id> --reason R',
    usage: '<invoice_id> --reason R',
    async run(ctx, args) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { reason: { type: 'string' } },
      });
      if (!values.reason?.trim()) throw new UsageError('--reason is required');
      const { voidInvoice } = await invoices();
      print(ctx, await voidInvoice(await cliDeps(ctx), uuidArg(positionals[0], 'invoice id'), values.reason));
    },
  },
};
