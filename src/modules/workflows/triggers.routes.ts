/**
 * POST /workflow-triggers/{trigger_token}: public but signed exactly like our outbound webhooks
 * (`X-SVC-Timestamp`, `X-SVC-Signature: sha256=<hex HMAC-SHA256 of "timestamp.rawBody">` keyed with
 * the workflow's trigger secret, 300 s tolerance, constant-time). The raw body is kept for the check.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { keepRawJsonBody } from '../../providers/inbound-notifications';
import { triggerRun } from './runs.service';
import { ErrorSchema, TriggerAcceptedSchema, TriggerParams } from './workflows.schemas';

export async function workflowTriggerRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  keepRawJsonBody(app);
  app.post<{ Params: { trigger_token: string } }>(
    '/workflow-triggers/:trigger_token',
    {
      config: { auth: 'public', errors: [401], idempotency: 'optional' },
      schema: {
        tags: ['Workflows'],
        summary: 'Trigger a webhook-triggered workflow (signed)',
        description:
          'Starts a run with the JSON object body as input; 202 with `run_id`. Sign like our outbound webhooks: ' +
          '`X-SVC-Timestamp: <unix seconds>` and `X-SVC-Signature: sha256=<hex HMAC-SHA256 of "timestamp.rawBody">` ' +
          'keyed with the trigger secret; older than 300 s, missing or wrong: 401. Unknown token: 404. ' +
          '`X-Idempotency-Key` deduplicates (same key: the same run, `replayed: true`).',
        params: TriggerParams,
        body: Type.Unknown({ description: 'Any JSON object: the run input' }),
        response: { 202: TriggerAcceptedSchema, 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) => {
      const res = await triggerRun(deps, req.params.trigger_token, {
        rawBody: req.rawBody,
        timestamp: req.headers['x-svc-timestamp'],
        signature: req.headers['x-svc-signature'],
        idempotencyKey: req.headers['x-idempotency-key'],
      });
      return reply.status(202).send(res);
    },
  );
}
