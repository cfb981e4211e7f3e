/** Activity logs: the client API (activity.read), the streaming export, and the staff list. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { clientAuthOf } from '../../plugins/auth';
import { notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { toPageParams } from '../../shared/pagination';
import {
  ActivityEntrySchema,
  ActivityIdParams,
  ActivityListSchema,
  AdminListActivityQuery,
  ErrorSchema,
  ExportActivityQuery,
  ExportSchema,
  ListActivityQuery,
} from './activity.schemas';
import { exportActivityLogs, filtersOf, getActivityLog, listActivityLogs } from './activity.service';

const tags = ['Activity logs'];
const read = { permission: 'activity.read' as const };

const listDescription =
  'Newest first by occurred_at. `action` is a prefix (`team_member.`); `q` searches the action, the target label ' +
  'and the actor email; `from`/`to` bound occurred_at (from inclusive, to exclusive). Secrets, OTPs and tokens ' +
  'appear only as "[redacted]". A counter list: `records` is the number of entries on this page.';

export async function activityRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/activity-logs',
    {
      config: read,
      schema: {
        tags,
        summary: 'List activity-log entries',
        description: listDescription,
        querystring: ListActivityQuery,
        response: { 200: ActivityListSchema },
      },
    },
    async (req) =>
      listActivityLogs(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), filtersOf(req.query)),
  );

  r.get(
    '/activity-logs/export',
    {
      config: read,
      schema: {
        tags,
        summary: 'Export activity-log entries (CSV or JSON Lines)',
        description:
          'Exactly the entries the list returns for the same filters, in the same order, streamed. CSV has one ' +
          'header line; `changes` and `metadata` are JSON text, and a cell starting with =, +, -, @, tab or CR ' +
          'gets a leading single quote. At most 100,000 entries (more: 400).',
        querystring: ExportActivityQuery,
        response: { 200: ExportSchema, 400: ErrorSchema },
      },
    },
    async (req, reply) => {
      const { format, ...filters } = req.query;
      const stream = await exportActivityLogs(deps, clientAuthOf(req).clientId, filtersOf(filters), format);
      const stamp = deps.clock.now().toISOString().slice(0, 10);
      return reply
        .header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
        .header('content-disposition', `attachment; filename="activity-logs-${stamp}.${format}"`)
        .header('cache-control', 'no-store')
        .send(stream as unknown as string);
    },
  );

  r.get(
    '/activity-logs/:activity_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get an activity-log entry',
        params: ActivityIdParams,
        response: { 200: ActivityEntrySchema, 404: ErrorSchema },
      },
    },
    async (req) => getActivityLog(deps, clientAuthOf(req).clientId, req.params.activity_id),
  );

  r.get(
    '/admin/activity-logs',
    {
      config: { auth: 'staff', errors: [404] },
      schema: {
        tags: ['Admin (staff)'],
        summary: "A client's activity log",
        description: `${listDescription} \`client_id\` names the client (unknown: 404).`,
        querystring: AdminListActivityQuery,
        response: { 200: ActivityListSchema, 404: ErrorSchema },
      },
    },
    async (req) => {
      const { client_id, ...rest } = req.query;
      const found = rowsOf(await deps.db.execute(sql`select 1 from clients where id = ${client_id}::uuid`));
      if (found.length === 0) throw notFound(M.clientNotFound);
      return listActivityLogs(deps, client_id, toPageParams(rest, 20), filtersOf(rest));
    },
  );
}
