/**
 * The document's `webhooks` section describes what is delivered: every event type has a typed
 * `data` schema, the delivery headers and an example, each example validates (ajv, as Fastify
 * validates), and real deliveries of the events a test makes cheaply (payment, KYC, KYB, opco,
 * project, contracts, workflows, bulk links, tickets, webhook.test) validate against the document,
 * with no data field the document does not list.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, SYSTEM_EVENT_TYPES } from '../../src/outbox/event-types';
import { createJob, rowFor } from '../bulk-links/fixtures';
import {
  call,
  createTemplate,
  participants,
  send,
  simulate as simulateContract,
} from '../contracts/fixtures';
import { webhookWorld } from '../helpers/suites';
import { createKycWorld, createLink, simulate as simulateVerification } from '../kyc/fixtures';
import { txBody } from '../monitoring/fixtures';
import { companyBody, staffHeaders } from '../org/fixtures';
import { createPaylink, simulate as simulatePayment } from '../payments/fixtures';
import { paidPayment, postRefund, settleRefunds } from '../refunds/fixtures';
import { createSchedule } from '../schedules/fixtures';
import { drain as drainWorkflows, simpleGraph, api as workflowApi } from '../workflows/fixtures';

type Schema = Record<string, unknown>;
type WebhookOp = {
  parameters: { name: string; in: string; required: boolean; schema: Schema }[];
  requestBody: { content: { 'application/json': { schema: Schema; example: Record<string, unknown> } } };
};
type Doc = { webhooks: Record<string, { post: WebhookOp }>; components: { schemas: Record<string, Schema> } };

const suite = webhookWorld();
let doc: Doc;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();

beforeAll(async () => {
  doc = (await suite.ctx.app.inject({ url: '/api/v1/openapi.json' })).json() as Doc;
});

/** The delivery body schema of `type`, its `$ref`s resolved inside the document's components. */
function validatorOf(type: string): ValidateFunction {
  let v = validators.get(type);
  if (!v) {
    const body = doc.webhooks[type]!.post.requestBody.content['application/json'].schema;
    v = ajv.compile({ ...body, components: doc.components });
    validators.set(type, v);
  }
  return v;
}

const dataSchemaOf = (type: string) => {
  const ref = (
    (doc.webhooks[type]!.post.requestBody.content['application/json'].schema.allOf as Schema[])[1]!
      .properties as { data: { $ref: string } }
  ).data.$ref;
  return doc.components.schemas[ref.split('/').pop()!] as {
    properties: Record<string, Schema>;
    required: string[];
  };
};

const ALL_TYPES = [...EVENT_TYPES, ...SYSTEM_EVENT_TYPES];

describe('the webhooks section of the document', () => {
  it('gives every event type a typed data schema, the signature headers and a valid example', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...ALL_TYPES].sort());
    for (const type of ALL_TYPES) {
      const op = doc.webhooks[type]!.post;
      expect(
        op.parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name),
        type,
      ).toEqual([
        'X-SVC-Event-Id',
        'X-SVC-Event-Type',
        'X-SVC-Event-Version',
        'X-SVC-Timestamp',
        'X-SVC-Signature',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      const data = dataSchemaOf(type);
      expect(Object.keys(data.properties).length, type).toBeGreaterThan(1);
      // Every field is always sent: all are required (null where nullable).
      expect([...data.required].sort(), type).toEqual(Object.keys(data.properties).sort());
      const example = op.requestBody.content['application/json'].example;
      expect(example.type).toBe(type);
      const validate = validatorOf(type);
      expect(validate(example), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(Object.keys(example.data as object).sort(), type).toEqual(Object.keys(data.properties).sort());
    }
    // Statuses are enums; actor_type is string or null (null when automatic).
    const payment = dataSchemaOf('payment.status_changed');
    expect(payment.properties.current_payment_status).toMatchObject({
      enum: expect.arrayContaining(['success']),
    });
    expect(JSON.stringify(payment.properties.actor_type)).toContain('"null"');
  });

  it('rejects a delivery whose data breaks its schema (the check has teeth)', () => {
    const example =
      doc.webhooks['payment.status_changed']!.post.requestBody.content['application/json'].example;
    const broken = { ...example, data: { ...(example.data as object), current_payment_status: 'paid' } };
    expect(validatorOf('payment.status_changed')(broken)).toBe(false);
  });
});

describe('real deliveries', () => {
  it('validate against the document, headers included', async () => {
    // payment.status_changed (automatic: actor_type null)
    const link = await createPaylink(suite.ctx, suite.w);
    expect((await simulatePayment(suite.ctx, suite.w, link.transaction_id, 'completed')).statusCode).toBe(
      200,
    );
    // kyc.status_changed, kyb.status_changed
    const kw = await createKycWorld(suite.ctx, { clientId: suite.w.caller.clientId });
    await simulateVerification(suite.ctx, kw, (await createLink(suite.ctx, kw)).verification_id, 'approved');
    await simulateVerification(
      suite.ctx,
      kw,
      (await createLink(suite.ctx, kw, {}, 'kyb')).verification_id,
      'approved',
    );
    // opco.status_changed
    const opco = await call(suite.ctx, suite.w.caller)('POST', '/opcos', companyBody());
    expect(opco.statusCode, opco.body).toBe(201);
    const submitted = await call(suite.ctx, suite.w.caller)('POST', `/opcos/${opco.json().opco_id}/submit`);
    expect(submitted.statusCode, submitted.body).toBe(200);
    // project.frozen_changed
    const staff = await staffHeaders(suite.ctx);
    const frozen = await suite.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/admin/projects/${suite.w.projectId}/freeze`,
      headers: staff.headers,
    });
    expect(frozen.statusCode, frozen.body).toBe(200);
    await suite.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/admin/projects/${suite.w.projectId}/unfreeze`,
      headers: staff.headers,
    });
    // contract.request.status_changed, contract.participant.status_changed, contract.request.completed
    const template = await createTemplate(suite.ctx, suite.w.caller);
    const r = await send(suite.ctx, suite.w.caller, {
      template_id: template.template_id,
      participants: participants('schema'),
      payment: { amount: '10.00', currency: 'EUR', project_id: suite.w.projectId, user_id: suite.w.userId },
    });
    for (const p of r.participants)
      await simulateContract(suite.ctx, suite.w.caller, r.contract_request_id, 'sign', p.participant_id);
    // workflow.run.started, workflow.step.completed, workflow.run.completed
    const wf = workflowApi(suite.ctx, suite.w.caller);
    const def = await wf.createPublished(simpleGraph());
    await wf.start(def.definition_id, { name: 'Ada' });
    await drainWorkflows(suite.ctx);
    // paylink.bulk.status_changed
    await createJob(suite.ctx, suite.w.caller, { rows: [rowFor(suite.w)], preview: true });
    // ticket.status_changed, ticket.message.created
    const ticket = await call(suite.ctx, suite.w.caller)('POST', '/tickets', {
      subject: 'Schema',
      body: 'Hello',
      category: 'technical',
    });
    expect(ticket.statusCode, ticket.body).toBe(201);
    // monitoring.transaction.status_changed, screening.wallet.completed, payment_schedule.*
    const monitored = await call(suite.ctx, suite.w.caller)('POST', '/monitoring/transactions', txBody());
    expect(monitored.statusCode, monitored.body).toBe(201);
    const screened = await call(suite.ctx, suite.w.caller)('POST', '/screening/wallet', {
      chain: 'ethereum',
      address: `0x${'b'.repeat(39)}1`,
    });
    expect(screened.statusCode, screened.body).toBeLessThan(300);
    await createSchedule(suite.ctx, suite.w, {
      plan: { total_amount: '30.00', count: 3, interval: 'month', start_date: '2027-01-31' },
    });
    // refund.created, refund.status_changed (processing, then succeeded at the sandbox bank)
    const paid = await paidPayment(suite.ctx, suite.w, '20.00');
    const refund = await postRefund(suite.ctx, suite.w.caller, paid, { amount: '5.00', reason: 'Schema' });
    expect(refund.statusCode, refund.body).toBe(201);
    await settleRefunds(suite.ctx);
    // webhook.test
    const test = await call(suite.ctx, suite.w.caller)('POST', '/webhooks/subscription/test');
    expect(test.statusCode, test.body).toBeLessThan(300);

    while ((await suite.dispatcher.drain()) > 0);
    const delivered = suite.rx.on('/hooks');
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const req of delivered) {
      const body = JSON.parse(req.rawBody) as { type: string; data: Record<string, unknown> };
      seen.add(body.type);
      const validate = validatorOf(body.type);
      if (!validate(JSON.parse(req.rawBody)))
        problems.push(`${body.type}: ${JSON.stringify(validate.errors)} in ${req.rawBody}`);
      const extra = Object.keys(body.data).filter((k) => !(k in dataSchemaOf(body.type).properties));
      if (extra.length > 0) problems.push(`${body.type}: undocumented data fields ${extra.join(', ')}`);
      for (const h of doc.webhooks[body.type]!.post.parameters) {
        const value = req.headers[h.name.toLowerCase()];
        // An optional header (the Standard Webhooks ones) is checked when it is sent.
        if (!h.required && value === undefined) continue;
        if (typeof value !== 'string' || !ajv.validate(h.schema, value))
          problems.push(`${body.type}: header ${h.name} = ${String(value)}`);
      }
    }
    expect(problems).toEqual([]);
    expect([...seen].sort()).toEqual(
      expect.arrayContaining([
        'payment.status_changed',
        'kyc.status_changed',
        'kyb.status_changed',
        'opco.status_changed',
        'project.frozen_changed',
        'contract.request.status_changed',
        'contract.participant.status_changed',
        'contract.request.completed',
        'workflow.run.started',
        'workflow.step.completed',
        'workflow.run.completed',
        'paylink.bulk.status_changed',
        'ticket.status_changed',
        'ticket.message.created',
        'webhook.test',
        'refund.created',
        'refund.status_changed',
        'monitoring.transaction.status_changed',
        'screening.wallet.completed',
        'payment_schedule.status_changed',
        'payment_schedule.instalment.status_changed',
      ]),
    );
  }, 120_000);
});
