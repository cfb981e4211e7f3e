/**
 * POST /contracts/send: checks everything first (source, participants, CCs, payment exactly like POST
 * /checkout/paylink), then in ONE transaction stores the request, participants and document copies
 * with their events, audit trail and activity entry. The provider envelope is created right after the
 * commit (a job owed by the transaction, first tried right after it); when the provider cannot be
 * reached the jobs runner retries.
 */
import type { DbOrTx } from '../../../db/client';
import type { ContractRequestPayment } from '../../../db/schema/index';
import {
  type ContractFieldDef,
  type ContractRoleDef,
  contractDocuments,
  contractParticipants,
  contractRequests,
  contractTemplates,
} from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { addDays } from '../../../platform/calendar';
import { runIdempotent } from '../../../platform/idempotency';
import type { ClientAuth } from '../../../plugins/auth';
import { encrypt, keyedHash } from '../../../shared/crypto';
import { AppError, badRequest, invalidField, ValidationError } from '../../../shared/errors';
import { randomToken } from '../../../shared/ids';
import { assertOwnedReferences } from '../../../shared/references';
import { recordActivity } from '../../activity/activity-writer.service';
import { assertFeatureEnabled } from '../../features/features.service';
import { assertPaylinkAllowed, loadPaylinkFacts, validatePaylinkInput } from '../../payments/paylink.service';
import { ContractMessages } from '../contracts.messages';
import type { SendInput } from '../contracts.schemas';
import { requireFlow } from '../flows/flows.service';
import {
  buildTemplateValues,
  markTemplatesUsed,
  requireTemplate,
  type TemplateRow,
} from '../templates/templates.service';
import { mergeRoles } from '../templates/validate.service';
import { runEffects } from './after-commit.service';
import { CONTRACT_JOBS, noEffects, owe } from './effects.service';
import { addAudit, findRequest } from './requests.repo';
import { emitParticipantStatus, emitRequestStatus } from './requests.transitions';
import { requestView } from './requests.view';

type Source = {
  templates: TemplateRow[];
  adHoc: Awaited<ReturnType<typeof buildTemplateValues>> | null;
  flow: Awaited<ReturnType<typeof requireFlow>> | null;
};

async function resolveSource(deps: Deps, clientId: string, b: SendInput): Promise<Source> {
  const n = [b.template_id, b.flow_id, b.document].filter((x) => x !== undefined).length;
  if (n !== 1) throw invalidField(['body'], ContractMessages.exactlyOneSource);
  if (b.template_id) {
    const t = await requireTemplate(deps.db, clientId, b.template_id);
    if (t.archivedAt) throw badRequest(ContractMessages.templateArchived);
    return { templates: [t], adHoc: null, flow: null };
  }
  if (b.flow_id) {
    const f = await requireFlow(deps.db, clientId, b.flow_id);
    if (f.archivedAt) throw badRequest(ContractMessages.flowArchived);
    if (f.status !== 'active') throw badRequest(ContractMessages.flowNotActive);
    const ts = [];
    for (const id of f.templateIds) {
      const t = await requireTemplate(deps.db, clientId, id);
      if (t.archivedAt) throw badRequest(ContractMessages.templateArchived);
      ts.push(t);
    }
    return { templates: ts, adHoc: null, flow: f };
  }
  const d = b.document!;
  const adHoc = await buildTemplateValues(
    deps,
    { document: d, roles: d.roles, fields: d.fields },
    ['body', 'document'],
    ['body', 'document'],
  );
  return { templates: [], adHoc, flow: null };
}

function checkParticipants(roles: ContractRoleDef[], b: SendInput) {
  const byRole = new Map<string, number>();
  const issues = [];
  b.participants.forEach((p, i) => {
    if (!roles.some((r) => r.role === p.role))
      issues.push({
        loc: ['body', 'participants', i, 'role'],
        msg: ContractMessages.unknownRole(p.role),
        type: 'value_error',
      });
    else if (byRole.has(p.role))
      issues.push({
        loc: ['body', 'participants', i, 'role'],
        msg: ContractMessages.duplicateParticipant(p.role),
        type: 'value_error',
      });
    byRole.set(p.role, i);
    if (p.user_id && p.business_customer_id)
      issues.push({
        loc: ['body', 'participants', i, 'business_customer_id'],
        msg: 'Give at most one of user_id and business_customer_id',
        type: 'value_error',
      });
  });
  for (const r of roles)
    if (!byRole.has(r.role))
      issues.push({
        loc: ['body', 'participants'],
        msg: ContractMessages.missingParticipant(r.role),
        type: 'value_error',
      });
  const emails = new Set(b.participants.map((p) => p.email.toLowerCase()));
  (b.cc_recipients ?? []).forEach((c, i) => {
    if (emails.has(c.email.toLowerCase()))
      issues.push({
        loc: ['body', 'cc_recipients', i, 'email'],
        msg: ContractMessages.ccIsParticipant,
        type: 'value_error',
      });
  });
  if (issues.length > 0) throw new ValidationError(issues);
}

async function checkPayment(
  deps: Deps,
  clientId: string,
  b: SendInput,
  flow: Source['flow'],
): Promise<ContractRequestPayment | null> {
  const fp = flow?.payment ?? null;
  if (!b.payment && !fp) return null;
  const p = b.payment ?? {};
  let userId = p.user_id;
  let businessId = p.business_customer_id;
  if (fp && !userId && !businessId) {
    const payer = b.participants.find((x) => x.role === fp.payer_role);
    userId = payer?.user_id;
    businessId = payer?.business_customer_id;
    if (!userId && !businessId)
      throw invalidField(['body', 'participants'], ContractMessages.payerNeedsCustomer);
  }
  const amount = p.amount ?? fp?.amount ?? undefined;
  if (!amount) throw invalidField(['body', 'payment', 'amount'], ContractMessages.paymentNeedsAmount);
  const body = {
    amount,
    currency: p.currency ?? fp?.currency ?? '',
    project_id: p.project_id ?? fp?.project_id ?? '',
    ...(userId ? { user_id: userId } : {}),
    ...(businessId ? { business_customer_id: businessId } : {}),
    expires_in_seconds: p.expires_in_seconds ?? 86400,
  };
  if (!body.project_id)
    throw invalidField(['body', 'payment', 'project_id'], 'payment.project_id is required');
  let v: { amount: string; currency: string };
  try {
    v = validatePaylinkInput(body, deps.config);
  } catch (e) {
    if (e instanceof ValidationError)
      throw new ValidationError(e.issues.map((i) => ({ ...i, loc: ['body', 'payment', ...i.loc.slice(1)] })));
    throw e;
  }
  const facts = (await loadPaylinkFacts(deps.db, clientId, [body]))?.[0];
  if (!facts) throw new AppError(404, ContractMessages.requestNotFound);
  assertPaylinkAllowed(facts);
  return {
    amount: v.amount,
    currency: v.currency,
    project_id: body.project_id,
    user_id: userId ?? null,
    business_customer_id: businessId ?? null,
    description: p.description ?? fp?.description ?? null,
    expires_in_seconds: p.expires_in_seconds ?? null,
    transaction_id: null,
    checkout_url: null,
    error: null,
  };
}

function checkRedirect(deps: Deps, url: string | undefined): string | null {
  if (url === undefined) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalidField(['body', 'redirect_url'], 'redirect_url must be an https URL');
  }
  const ok = u.protocol === 'https:' || (u.protocol === 'http:' && deps.config.environment === 'sandbox');
  if (!ok) throw invalidField(['body', 'redirect_url'], 'redirect_url must be an https URL');
  return u.toString();
}

export async function sendContract(
  deps: Deps,
  auth: ClientAuth,
  idemHeader: string | string[] | undefined,
  b: SendInput,
) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  if (!deps.providers.esign.configured) throw new AppError(503, ContractMessages.providerNotConfigured);
  const src = await resolveSource(deps, auth.clientId, b);
  const roles = src.adHoc
    ? src.adHoc.roles
    : mergeRoles(
        src.templates.map((t) => t.roles),
        ['body', 'flow_id'],
      );
  checkParticipants(roles, b);
  await assertOwnedReferences(
    deps.db,
    auth.clientId,
    b.participants.flatMap((p) => [
      ['user', p.user_id],
      ['business_customer', p.business_customer_id],
    ]),
  );
  const payment = await checkPayment(deps, auth.clientId, b, src.flow);
  const redirectUrl = checkRedirect(deps, b.redirect_url);
  const res = await runIdempotent(
    deps,
    { clientId: auth.clientId, scope: 'contracts.send', header: idemHeader, required: false, payload: b },
    async (commit) => {
      const now = deps.clock.now();
      const fx = noEffects();
      const id = await deps.db.transaction(async (tx) => {
        const id = await storeRequest(deps, tx, auth, b, src, roles, payment, redirectUrl, now);
        await owe(
          tx,
          now,
          fx,
          CONTRACT_JOBS.createEnvelope,
          { requestId: id },
          { dedupeKey: id, clientId: auth.clientId },
        );
        const row = await findRequest(tx, auth.clientId, id);
        await commit(tx, await requestView(deps, tx, row!));
        return id;
      });
      await runEffects(deps, fx);
      const row = await findRequest(deps.db, auth.clientId, id);
      return { body: await requestView(deps, deps.db, row!), status: 201 };
    },
  );
  return res;
}

async function storeRequest(
  deps: Deps,
  tx: DbOrTx,
  auth: ClientAuth,
  b: SendInput,
  src: Source,
  roles: ContractRoleDef[],
  payment: ContractRequestPayment | null,
  redirectUrl: string | null,
  now: Date,
): Promise<string> {
  let templates = src.templates;
  if (src.adHoc) {
    const [t] = await tx
      .insert(contractTemplates)
      .values({
        clientId: auth.clientId,
        name: b.title ?? b.document!.file_name,
        ...src.adHoc,
        isAdHoc: true,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    templates = [t!];
  }
  const flow = src.flow;
  const expiresDays = b.expires_in_days ?? flow?.expiresInDays ?? 30;
  const reminder =
    b.reminder_interval_days !== undefined ? b.reminder_interval_days : (flow?.reminderIntervalDays ?? null);
  const cc = b.cc_recipients ?? flow?.ccRecipients ?? [];
  const viewToken = cc.some((c) => c.when === 'on_send') ? randomToken(32) : null;
  const [r] = await tx
    .insert(contractRequests)
    .values({
      clientId: auth.clientId,
      title: b.title ?? flow?.name ?? templates[0]!.name,
      message: b.message ?? null,
      status: 'pending',
      flowId: flow?.id ?? null,
      templateIds: templates.map((t) => t.id),
      templateVersions: templates.map((t) => t.version),
      externalReference: b.external_reference ?? null,
      delivery: b.delivery ?? flow?.delivery ?? 'email',
      redirectUrl,
      fieldValues: b.field_values ?? {},
      ccRecipients: cc.map((c) => ({
        email: c.email,
        name: c.name ?? null,
        when: c.when ?? 'on_completion',
        sent_at: null,
      })),
      payment,
      metadata: b.metadata ?? {},
      expiresAt: addDays(now, expiresDays),
      reminderIntervalDays: reminder,
      viewTokenHash: viewToken ? keyedHash(deps.secrets.hashKey, viewToken) : null,
      viewTokenEnc: viewToken ? encrypt(deps.secrets.encryptionKey, viewToken) : null,
      createdByActorType: auth.actorType,
      createdByAccountId: auth.accountId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  await emitRequestStatus(tx, r!, null, { actorType: auth.actorType, actorAccountId: auth.accountId }, now);
  let position = 0;
  for (const role of roles) {
    const p = b.participants.find((x) => x.role === role.role)!;
    const token = randomToken(32);
    const [row] = await tx
      .insert(contractParticipants)
      .values({
        requestId: r!.id,
        clientId: auth.clientId,
        position: position++,
        role: role.role,
        kind: role.kind,
        name: p.name,
        email: p.email,
        userId: p.user_id ?? null,
        businessCustomerId: p.business_customer_id ?? null,
        signingOrder: p.signing_order ?? role.signing_order,
        auth: p.auth ?? 'none',
        status: 'waiting',
        tokenHash: keyedHash(deps.secrets.hashKey, token),
        tokenEnc: encrypt(deps.secrets.encryptionKey, token),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await emitParticipantStatus(tx, row!, null, now);
  }
  for (const [i, t] of templates.entries())
    await tx.insert(contractDocuments).values({
      requestId: r!.id,
      clientId: auth.clientId,
      templateId: t.id,
      position: i,
      kind: 'original',
      fileName: t.fileName,
      sha256: t.sha256,
      size: t.size,
      content: t.content,
      fields: t.fields as ContractFieldDef[],
      createdAt: now,
    });
  await markTemplatesUsed(
    tx,
    templates.map((t) => t.id),
    now,
  );
  await addAudit(tx, { requestId: r!.id, type: 'request.created', at: now });
  await recordActivity(tx, {
    clientId: auth.clientId,
    action: 'contract_request.sent',
    at: now,
    target: { type: 'contract_request', id: r!.id, label: r!.title },
    metadata: {
      template_ids: r!.templateIds,
      flow_id: r!.flowId,
      participants: roles.length,
      delivery: r!.delivery,
    },
  });
  return r!.id;
}
