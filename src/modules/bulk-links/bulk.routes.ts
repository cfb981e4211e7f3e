/** /checkout/paylink/bulk: thin routes over bulk.service.ts (payments.write to change, payments.read to read). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, type ClientAuth, clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import { paylinkBodyChecker } from '../payments/paylink-validation.policy';
import { ErrorSchema } from '../payments/payments.schemas';
import { withJobActions } from './bulk.actions';
import {
  BulkCreateBodySchema,
  BulkParamsSchema,
  CancelBodySchema,
  CsvSchema,
  IdemHeadersSchema,
  JobListQuerySchema,
  JobListSchema,
  JobSchema,
  ResultsQuerySchema,
  RetryBodySchema,
  RowListQuerySchema,
  RowListSchema,
} from './bulk.schemas';
import {
  cancelBulkJob,
  confirmBulkJob,
  createBulkJob,
  getBulkJob,
  listBulkJobs,
  listBulkRows,
  type RetryBody,
  retryBulkJob,
} from './bulk.service';
import type { JobDto } from './bulk.view';
import { parseStatusList, resultsCsv, templateCsv } from './bulk-results.service';

const TAGS = ['bulk payment links'];

export async function bulkLinksRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  // Base64 is 4/3 of the file, plus room for the rest of the JSON body.
  const bodyLimit = Math.ceil((deps.config.bulkPaylinkMaxFileBytes * 4) / 3) + 1024 * 1024;
  const forCaller = <V extends JobDto>(dto: V, auth: ClientAuth) =>
    withJobActions(dto, actionViewer(deps, auth), deps.clock.now());

  r.post(
    '/checkout/paylink/bulk',
    {
      bodyLimit,
      config: { permission: 'payments.write', idempotency: 'required' },
      schema: {
        tags: TAGS,
        summary: 'Create up to 500 payment links from JSON rows or a CSV/XLSX file',
        description:
          'Requires `X-Idempotency-Key`. Every row is validated like POST /checkout/paylink; invalid rows are kept ' +
          'with per-row errors. With `preview` the job waits for POST …/confirm (201 previewed); otherwise it is ' +
          'queued (202) and a worker creates the links.',
        headers: IdemHeadersSchema,
        body: BulkCreateBodySchema,
        response: { 200: JobSchema, 201: JobSchema, 202: JobSchema, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      const auth = clientAuthOf(request);
      const res = await createBulkJob(
        deps,
        auth,
        request.headers['x-idempotency-key'],
        request.body,
        paylinkBodyChecker(request, deps.config),
      );
      return reply.code(res.status as 201).send(forCaller(res.body, auth));
    },
  );

  r.get(
    '/checkout/paylink/bulk',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags: TAGS,
        summary: 'List bulk jobs',
        querystring: JobListQuerySchema,
        response: { 200: JobListSchema },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      const list = await listBulkJobs(
        deps,
        auth.clientId,
        request.query.status,
        toPageParams(request.query, 20),
      );
      return { ...list, bulk_jobs: list.bulk_jobs.map((j) => forCaller(j, auth)) };
    },
  );

  r.get(
    '/checkout/paylink/bulk/template.csv',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags: TAGS,
        summary: 'A CSV file with the header row of a bulk upload',
        response: { 200: CsvSchema },
      },
    },
    async (_request, reply) =>
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="bulk-payment-links-template.csv"')
        .send(templateCsv()),
  );

  r.get(
    '/checkout/paylink/bulk/:bulk_id',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags: TAGS,
        summary: 'Get a bulk job',
        params: BulkParamsSchema,
        response: { 200: JobSchema },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      return forCaller(await getBulkJob(deps, auth.clientId, request.params.bulk_id), auth);
    },
  );

  r.get(
    '/checkout/paylink/bulk/:bulk_id/rows',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags: TAGS,
        summary: 'Rows of a bulk job, ascending row_number',
        params: BulkParamsSchema,
        querystring: RowListQuerySchema,
        response: { 200: RowListSchema },
      },
    },
    async (request) =>
      listBulkRows(
        deps,
        clientAuthOf(request).clientId,
        request.params.bulk_id,
        request.query.status,
        toPageParams(request.query, 20),
      ),
  );

  r.get(
    '/checkout/paylink/bulk/:bulk_id/results.csv',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags: TAGS,
        summary: 'The rows as CSV: input columns plus status, transaction_id, checkout_url, errors',
        params: BulkParamsSchema,
        querystring: ResultsQuerySchema,
        response: { 200: CsvSchema },
      },
    },
    async (request, reply) => {
      const csv = await resultsCsv(
        deps,
        clientAuthOf(request).clientId,
        request.params.bulk_id,
        parseStatusList(request.query.status),
      );
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="bulk-${request.params.bulk_id}-results.csv"`)
        .send(csv);
    },
  );

  r.post(
    '/checkout/paylink/bulk/:bulk_id/confirm',
    {
      config: { permission: 'payments.write', bodyless: true },
      schema: {
        tags: TAGS,
        summary: 'Queue a previewed job',
        params: BulkParamsSchema,
        response: { 202: JobSchema, 400: ErrorSchema },
      },
    },
    async (request, reply) => {
      const auth = clientAuthOf(request);
      return reply.code(202).send(forCaller(await confirmBulkJob(deps, auth, request.params.bulk_id), auth));
    },
  );

  r.post(
    '/checkout/paylink/bulk/:bulk_id/retry',
    {
      config: { permission: 'payments.write' },
      schema: {
        tags: TAGS,
        summary: 'Patch and retry failed or invalid rows',
        description:
          'Only in completed_with_errors. `rows_patch` replaces columns of failed or invalid rows, which are ' +
          'revalidated. Retried: `row_numbers`, or by default every failed row, plus every patched row now valid.',
        params: BulkParamsSchema,
        body: RetryBodySchema,
        response: { 202: JobSchema, 400: ErrorSchema },
      },
    },
    async (request, reply) => {
      const auth = clientAuthOf(request);
      const job = await retryBulkJob(
        deps,
        auth,
        request.params.bulk_id,
        request.body as RetryBody,
        paylinkBodyChecker(request, deps.config),
      );
      return reply.code(202).send(forCaller(job, auth));
    },
  );

  r.post(
    '/checkout/paylink/bulk/:bulk_id/cancel',
    {
      config: { permission: 'payments.write' },
      schema: {
        tags: TAGS,
        summary: 'Cancel a bulk job',
        description:
          'Every row without a link (valid, invalid, pending, failed) is canceled; with `cancel_created_links` ' +
          'the pending intents of created links too.',
        params: BulkParamsSchema,
        body: CancelBodySchema,
        response: { 200: JobSchema, 400: ErrorSchema },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      const job = await cancelBulkJob(
        deps,
        auth,
        request.params.bulk_id,
        request.body?.cancel_created_links ?? false,
      );
      return forCaller(job, auth);
    },
  );
}
