/**
 * What each node kind does when a step runs. Every kind calls the existing use case (customers,
 * verification links, payment links, opcos, projects, the mailer, the guarded HTTP client); none
 * reimplements it. Configs arrive with their templates already resolved.
 */
import { and, eq, sql } from 'drizzle-orm';
import { Value } from 'typebox/value';
import { businessCustomers, clients, kycUsers } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { maskUrl } from '../../logger';
import { createHttpSender } from '../../outbox/http-sender';
import type { ClientAuth } from '../../plugins/auth';
import { AppError } from '../../shared/errors';
import { isUuid } from '../../shared/ids';
import { createBusiness, createUser, toBusinessView, toUserView } from '../customers/customers.service';
import { createVerificationLink } from '../kyc/verification.service';
import { CreateOpcoBody, type CreateOpcoInput } from '../opcos/opcos.schemas';
import { createOpco, getOpco } from '../opcos/opcos.service';
import { actorOf, createPlatformPaymentLink } from '../payments/paylink.service';
import { checkoutUrl } from '../payments/payments.service';
import { getProject } from '../projects/projects.service';
import {
  type ConditionOperator,
  evaluateCondition,
  type GraphNode,
  type NodeType,
} from './workflows-graph.policy';

/** A failure with a message fit for the run's error_message (no internals). */
export class StepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepError';
  }
}

export interface StepContext {
  deps: Deps;
  clientId: string;
  runId: string;
  stepId: string;
}

export interface StepResult {
  output: Record<string, unknown>;
  /** condition only: the branch taken. */
  branch?: 'on_true' | 'on_false';
}

type Config = Record<string, unknown>;
type Executor = (config: Config, ctx: StepContext) => Promise<StepResult>;

/**
 * Kinds whose step may run again after a crash left it `running` without a result, because the
 * call is idempotent by run + step (transfer: payment idempotency key; create_*: find-or-create by
 * email; http: at-least-once with an `Idempotency-Key` header) or has no side effect. The others
 * (kyc, kyb, opco_create, email, notify) are not retried: the run fails instead of risking a
 * second link, opco or message.
 */
export const RETRY_SAFE: ReadonlySet<NodeType> = new Set<NodeType>([
  'set',
  'condition',
  'wait',
  'opco',
  'project',
  'transfer',
  'create_user',
  'create_business_customer',
  'http',
]);

const HTTP_OUTPUT_BYTES = 1024;

function text(config: Config, key: string, required = true): string | undefined {
  const v = config[key];
  if (v === undefined || v === null || v === '') {
    if (required) throw new StepError(`${key} is empty after resolving templates`);
    return undefined;
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw new StepError(`${key} must be a string`);
  return String(v);
}

function uuidOf(config: Config, key: string): string {
  const v = text(config, key)!;
  if (!isUuid(v)) throw new StepError(`${key} must be a UUID (got '${v.slice(0, 60)}')`);
  return v;
}

/** The synthetic caller a workflow acts as when it calls a use case that takes one. */
function workflowAuth(ctx: StepContext): ClientAuth {
  return {
    clientId: ctx.clientId,
    role: 'owner',
    permissions: new Set(),
    actorType: 'client_api',
    accountId: null,
    credentialId: null,
    sessionId: null,
    tokenId: `workflow-run:${ctx.runId}`,
    tokenExpiresAt: ctx.deps.clock.now(),
    tokenType: 'client_api_access',
  };
}

async function findUserByEmail(ctx: StepContext, email: string) {
  const [row] = await ctx.deps.db
    .select()
    .from(kycUsers)
    .where(and(eq(kycUsers.clientId, ctx.clientId), sql`lower(${kycUsers.email}) = lower(${email.trim()})`));
  return row;
}

async function findBusinessByEmail(ctx: StepContext, email: string) {
  const [row] = await ctx.deps.db
    .select()
    .from(businessCustomers)
    .where(
      and(
        eq(businessCustomers.clientId, ctx.clientId),
        sql`lower(${businessCustomers.email}) = lower(${email.trim()})`,
      ),
    );
  return row;
}

const isConflict = (err: unknown) => err instanceof AppError && err.statusCode === 409;

const executors: Record<Exclude<NodeType, 'wait' | 'contract'>, Executor> = {
  async set(config) {
    return { output: { ...(config.values as Config) } };
  },

  async condition(config) {
    const result = evaluateCondition(config.left, config.operator as ConditionOperator, config.right);
    return { output: { result }, branch: result ? 'on_true' : 'on_false' };
  },

  /** Find-or-create by email: a user that already exists is returned with `created: false`. */
  async create_user(config, ctx) {
    const email = text(config, 'email')!;
    try {
      const user = await createUser(ctx.deps, ctx.clientId, {
        email,
        first_name: text(config, 'first_name')!,
        last_name: text(config, 'last_name', false) ?? null,
        external_ref: text(config, 'external_ref', false) ?? null,
      });
      return {
        output: { user_id: user.user_id, email: user.email, kyc_status: user.kyc_status, created: true },
      };
    } catch (err) {
      const existing = isConflict(err) ? await findUserByEmail(ctx, email) : undefined;
      if (!existing) throw err;
      const u = toUserView(existing);
      return { output: { user_id: u.user_id, email: u.email, kyc_status: u.kyc_status, created: false } };
    }
  },

  async create_business_customer(config, ctx) {
    const email = text(config, 'email')!;
    const view = (b: ReturnType<typeof toBusinessView>, created: boolean) => ({
      output: {
        business_customer_id: b.business_customer_id,
        company_name: b.company_name,
        email: b.email,
        kyb_status: b.kyb_status,
        created,
      },
    });
    try {
      return view(
        await createBusiness(ctx.deps, ctx.clientId, {
          company_name: text(config, 'company_name')!,
          registration_number: text(config, 'registration_number', false) ?? null,
          country: text(config, 'country')!,
          email,
        }),
        true,
      );
    } catch (err) {
      const existing = isConflict(err) ? await findBusinessByEmail(ctx, email) : undefined;
      if (!existing) throw err;
      return view(toBusinessView(existing), false);
    }
  },

  async kyc(config, ctx) {
    const link = await createVerificationLink(ctx.deps, workflowAuth(ctx), 'kyc', uuidOf(config, 'user_id'), {
      level: text(config, 'level', false),
      redirect_url: text(config, 'redirect_url', false) ?? null,
    });
    return { output: { ...link } };
  },

  async kyb(config, ctx) {
    const link = await createVerificationLink(
      ctx.deps,
      workflowAuth(ctx),
      'kyb',
      uuidOf(config, 'business_customer_id'),
      { level: text(config, 'level', false) },
    );
    return { output: { ...link } };
  },

  /** A payment link; its idempotency key is derived from run + step, so a retried step never pays twice. */
  async transfer(config, ctx) {
    const expires = config.expires_in_seconds;
    const res = await createPlatformPaymentLink(ctx.deps, {
      clientId: ctx.clientId,
      actor: actorOf(workflowAuth(ctx)),
      key: `workflow:${ctx.runId}:${ctx.stepId}`,
      origin: { type: 'workflow', id: ctx.runId },
      body: {
        project_id: uuidOf(config, 'project_id'),
        amount: text(config, 'amount')!,
        currency: text(config, 'currency')!,
        ...(config.user_id ? { user_id: uuidOf(config, 'user_id') } : {}),
        ...(config.business_customer_id
          ? { business_customer_id: uuidOf(config, 'business_customer_id') }
          : {}),
        ...(config.description ? { description: text(config, 'description') } : {}),
        expires_in_seconds: typeof expires === 'number' ? expires : 86400,
      },
    });
    const t = res.transaction;
    return {
      output: {
        transaction_id: t.id,
        status: t.status,
        amount: t.amount,
        currency: t.currency,
        project_id: t.projectId,
        checkout_url: checkoutUrl(ctx.deps, t),
        expires_at: t.expiresAt?.toISOString() ?? null,
      },
    };
  },

  async opco(config, ctx) {
    const o = await getOpco(ctx.deps, ctx.clientId, uuidOf(config, 'opco_id'));
    return { output: { opco_id: o.opco_id, name: o.name, status: o.status, sub_tpp_id: o.sub_tpp_id } };
  },

  async project(config, ctx) {
    const p = await getProject(ctx.deps, ctx.clientId, uuidOf(config, 'project_id'));
    return { output: { ...p } };
  },

  /** A draft opco from a POST /opcos body (validated against the same schema). */
  async opco_create(config, ctx) {
    const body = Value.Default(CreateOpcoBody, structuredClone(config.opco)) as unknown;
    const first = [...Value.Errors(CreateOpcoBody, body)][0];
    if (first) throw new StepError(`opco${first.instancePath.replace(/\//g, '.')} ${first.message}`);
    const o = await createOpco(ctx.deps, ctx.clientId, body as CreateOpcoInput);
    return { output: { opco_id: o.opco_id, name: o.name, status: o.status } };
  },

  async email(config, ctx) {
    const to = text(config, 'to')!;
    if (!/^[^\s@]+@[^\s@]+$/.test(to))
      throw new StepError(`to is not an email address ('${to.slice(0, 60)}')`);
    await sendMail(ctx, { to, subject: text(config, 'subject')!, text: text(config, 'text')! });
    return { output: { to, subject: text(config, 'subject')! } };
  },

  /** An email to the client's own account address (the one it registered with). */
  async notify(config, ctx) {
    const [client] = await ctx.deps.db
      .select({ email: clients.email })
      .from(clients)
      .where(eq(clients.id, ctx.clientId));
    if (!client) throw new StepError('client not found');
    await sendMail(ctx, { to: client.email, subject: text(config, 'subject')!, text: text(config, 'text')! });
    return { output: { channel: 'email', to: client.email, subject: text(config, 'subject')! } };
  },

  /**
   * Outbound GET or POST through the service's guarded HTTP client (http/https only, no redirects,
   * timeout, capped body; private and loopback targets refused in production). Non-2xx fails the step.
   */
  async http(config, ctx) {
    const url = text(config, 'url')!;
    const method = (config.method as 'GET' | 'POST' | undefined) ?? 'POST';
    const headers: Record<string, string> = {
      'user-agent': 'svc-workflows/1',
      'idempotency-key': `${ctx.runId}:${ctx.stepId}`,
      ...((config.headers as Record<string, string> | undefined) ?? {}),
    };
    let body: string | null = null;
    if (method === 'POST') {
      body = JSON.stringify(config.body ?? {});
      headers['content-type'] ??= 'application/json';
    }
    const sender = createHttpSender({
      timeoutMs: ctx.deps.config.workflowHttpTimeoutMs,
      maxResponseBytes: HTTP_OUTPUT_BYTES,
      guardPrivateNetworks: ctx.deps.config.environment === 'production',
      connectionsPerOrigin: 1,
    });
    try {
      const res = await sender.send(method, url, headers, body);
      if (res.status === null)
        throw new StepError(`HTTP ${method} ${safeUrl(url)}: ${res.error ?? 'no response'}`);
      if (res.status < 200 || res.status > 299)
        throw new StepError(`HTTP ${method} ${safeUrl(url)} answered ${res.status}`);
      return { output: { status: res.status, body: parseBody(res.bodySnippet) } };
    } finally {
      await sender.close();
    }
  },
};

async function sendMail(ctx: StepContext, m: { to: string; subject: string; text: string }) {
  try {
    await ctx.deps.mailer.send(m);
  } catch {
    throw new StepError('email delivery failed');
  }
}

/**
 * The URL without credentials or query string, capability tokens in its path masked like in the
 * request log (a workflow calling another's trigger URL, /api/v1/workflow-triggers/wft_…): error
 * messages are stored on the run and shown, and must not leak tokens.
 */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${maskUrl(u.pathname)}`;
  } catch {
    return 'the target URL';
  }
}

function parseBody(snippet: string | null): unknown {
  if (snippet === null) return null;
  try {
    return JSON.parse(snippet);
  } catch {
    return snippet;
  }
}

export async function executeNode(node: GraphNode, config: Config, ctx: StepContext): Promise<StepResult> {
  if (node.type === 'wait' || node.type === 'contract')
    throw new StepError(`node type '${node.type}' cannot be executed here`);
  return executors[node.type](config, ctx);
}
