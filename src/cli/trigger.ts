/**
 * `svc trigger <scenario>`: creates a sandbox object and drives it to an outcome over the public
 * API (the sandbox simulate endpoints), so its events reach webhooks and `svc listen`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiSession } from './api-session';

export interface TriggerContext {
  session: ApiSession;
  out: (line: string) => void;
  /** From --project-id / SVC_PROJECT_ID; else the first project of the client. */
  projectId?: string;
  /** From --user-id / SVC_USER_ID; optional for payments. */
  userId?: string;
  /** How long to wait for the sandbox to activate an opco (ms). */
  activationTimeoutMs: number;
}

interface Scenario {
  summary: string;
  run(ctx: TriggerContext): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function projectOf(ctx: TriggerContext): Promise<string> {
  if (ctx.projectId) return ctx.projectId;
  const list = await ctx.session.call<{ projects: { project_id: string }[] }>(
    'GET',
    '/projects?page=1&page_size=1',
  );
  const p = list.projects[0];
  if (!p) throw new Error('no project: set SVC_PROJECT_ID or run `svc sandbox bootstrap`');
  return p.project_id;
}

/** A EUR 10.00 payment link for the scenario of `event` (its description and metadata name it). */
async function createTriggerLink(ctx: TriggerContext, event: string) {
  return ctx.session.call<{ transaction_id: string }>('POST', '/checkout/paylink', {
    headers: { 'x-idempotency-key': randomUUID() },
    body: {
      amount: '10.00',
      currency: 'EUR',
      project_id: await projectOf(ctx),
      ...(ctx.userId ? { user_id: ctx.userId } : {}),
      description: `svc trigger ${event}`,
      metadata: { trigger: event },
    },
  });
}

function paymentScenario(outcome: 'success' | 'failed' | 'expired' | 'canceled', event: string): Scenario {
  return {
    summary: `a payment link walked to ${outcome} (payment.status_changed ... -> ${outcome})`,
    async run(ctx) {
      const link = await createTriggerLink(ctx, event);
      ctx.out(`created transaction ${link.transaction_id}`);
      const tx = await ctx.session.call<{ status: string }>(
        'POST',
        `/sandbox/transactions/${link.transaction_id}/simulate`,
        { body: { outcome } },
      );
      ctx.out(`transaction ${link.transaction_id} is ${tx.status}`);
    },
  };
}

function kycScenario(outcome: 'approved' | 'declined'): Scenario {
  return {
    summary: `a payer verified by the sandbox provider, ${outcome} (kyc.status_changed)`,
    async run(ctx) {
      const user = await ctx.session.call<{ user_id: string }>('POST', '/kyc/users', {
        body: { email: `trigger-${randomBytes(4).toString('hex')}@example.com`, first_name: 'Trigger' },
      });
      const link = await ctx.session.call<{ verification_id: string }>(
        'POST',
        `/kyc/users/${user.user_id}/verification-link`,
        { body: {} },
      );
      ctx.out(`created user ${user.user_id}, verification ${link.verification_id}`);
      const record = await ctx.session.call<{ status?: string }>(
        'POST',
        `/sandbox/verifications/${link.verification_id}/simulate`,
        { body: { outcome } },
      );
      ctx.out(`verification ${link.verification_id} is ${record.status ?? outcome}`);
    },
  };
}

const opcoActivated: Scenario = {
  summary: 'an opco submitted and activated by the sandbox (opco.status_changed ... -> activated)',
  async run(ctx) {
    const opco = await ctx.session.call<{ opco_id: string }>('POST', '/opcos', {
      body: {
        opco_type: 'licensed_tpp_sole_trader',
        name: `Trigger Shop ${randomBytes(2).toString('hex')}`,
        domain: 'trigger.example.com',
        country_code: 'GB',
        registration_number: '12345678',
        settlement_iban: 'GB82WEST12345698765432',
        mcc: '5411',
        sole_trader: { fullName: 'Trigger Owner', address: '1 High St', dateOfBirth: '1990-01-01' },
      },
    });
    await ctx.session.call('POST', `/opcos/${opco.opco_id}/submit`);
    ctx.out(`submitted opco ${opco.opco_id}; waiting for the sandbox to activate it`);
    const deadline = Date.now() + ctx.activationTimeoutMs;
    for (;;) {
      const o = await ctx.session.call<{ status: string }>('GET', `/opcos/${opco.opco_id}`);
      if (o.status === 'activated') break;
      if (Date.now() > deadline) throw new Error(`opco ${opco.opco_id} is still ${o.status}`);
      await sleep(500);
    }
    ctx.out(`opco ${opco.opco_id} is activated`);
  },
};

function refundScenario(outcome: 'succeeded' | 'failed'): Scenario {
  return {
    summary: `a paid payment refunded in full, the refund ${outcome} (refund.created, refund.status_changed)`,
    async run(ctx) {
      const event = `refund.${outcome}`;
      const link = await createTriggerLink(ctx, event);
      await ctx.session.call('POST', `/sandbox/transactions/${link.transaction_id}/simulate`, {
        body: { outcome: 'success' },
      });
      ctx.out(`transaction ${link.transaction_id} is success`);
      const refund = await ctx.session.call<{ refund_id: string; status: string }>(
        'POST',
        `/transactions/${link.transaction_id}/refunds`,
        { headers: { 'x-idempotency-key': randomUUID() }, body: { reason: `svc trigger ${event}` } },
      );
      ctx.out(`created refund ${refund.refund_id} (${refund.status})`);
      const done =
        refund.status === 'processing'
          ? await ctx.session.call<{ status: string }>(
              'POST',
              `/sandbox/refunds/${refund.refund_id}/simulate`,
              {
                body: { outcome },
              },
            )
          : refund;
      ctx.out(`refund ${refund.refund_id} is ${done.status}`);
    },
  };
}

/** The scenarios by name (`svc trigger --help` lists them). */
export const SCENARIOS: Record<string, Scenario> = {
  'payment.succeeded': paymentScenario('success', 'payment.succeeded'),
  'payment.failed': paymentScenario('failed', 'payment.failed'),
  'payment.expired': paymentScenario('expired', 'payment.expired'),
  'payment.canceled': paymentScenario('canceled', 'payment.canceled'),
  'refund.succeeded': refundScenario('succeeded'),
  'refund.failed': refundScenario('failed'),
  'kyc.approved': kycScenario('approved'),
  'kyc.declined': kycScenario('declined'),
  'opco.activated': opcoActivated,
};

export const TRIGGER_SYNOPSIS = '<scenario> [--url URL] [--project-id ID] [--user-id ID]';

export function triggerDetails(): string {
  const rows = Object.entries(SCENARIOS).map(([name, s]) => `  ${name.padEnd(20)} ${s.summary}`);
  return [
    'Creates a sandbox object and drives it to an outcome over the API with the credential in',
    'SVC_API_KEY / SVC_API_SECRET (SVC_API_URL, as printed by `svc sandbox bootstrap`).',
    '',
    'Scenarios:',
    ...rows,
  ].join('\n');
}

export function triggerUsage(): string {
  return `Usage: svc trigger ${TRIGGER_SYNOPSIS}\n\n${triggerDetails()}`;
}
