/**
 * Contract requests after send: read, list, void, remind (with its rate limit), participant
 * correction (a new link; the old one stops working), documents, certificate and audit trail.
 */
import type { Deps } from '../../../deps';
import type { ClientAuth } from '../../../plugins/auth';
import { addSeconds, secondsUntil } from '../../../shared/clock';
import { encrypt, keyedHash } from '../../../shared/crypto';
import { badRequest, notFound, tooManyRequests } from '../../../shared/errors';
import { randomToken } from '../../../shared/ids';
import { normalizeSearchQuery, type PageParams, paginationMeta } from '../../../shared/pagination';
import { recordActivity } from '../../activity/activity-writer.service';
import { assertFeatureEnabled } from '../../features/features.service';
import { ContractMessages } from '../contracts.messages';
import { assertNotCompleted, canMoveParticipant, isActiveTurn } from '../participants/participants.machine';
import { runEffects } from './after-commit.service';
import { CONTRACT_JOBS, type Effects, noEffects, owe } from './effects.service';
import { endRequest, oweInvitation } from './progress.service';
import { assertNotTerminal } from './requests.machine';
import {
  auditOf,
  documentContent,
  findRequest,
  listRequests,
  type ParticipantRow,
  participantsOf,
  type RequestFilter,
  type RequestRow,
  updateParticipant,
} from './requests.repo';
import { moveParticipant } from './requests.transitions';
import { requestView, requestViews } from './requests.view';

type D = Deps;
const target = (r: RequestRow) => ({ type: 'contract_request', id: r.id, label: r.title });
const actorOf = (auth: ClientAuth) => ({ actorType: auth.actorType, actorAccountId: auth.accountId });

export async function requireRequest(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const r = await findRequest(deps.db, clientId, id);
  if (!r) throw notFound(ContractMessages.requestNotFound);
  return r;
}

export async function getRequest(deps: D, clientId: string, id: string) {
  return requestView(deps, deps.db, await requireRequest(deps, clientId, id));
}

export async function listClientRequests(deps: D, f: RequestFilter, page: PageParams) {
  const { rows, total } = await listRequests(deps.db, { ...f, q: normalizeSearchQuery(f.q) }, page);
  return {
    contract_requests: await requestViews(deps, deps.db, rows),
    pagination: paginationMeta(total, page),
  };
}

export async function voidRequest(deps: D, auth: ClientAuth, id: string, reason: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const fx: Effects = noEffects();
  const now = deps.clock.now();
  const r = await deps.db.transaction(async (tx) => {
    const r = await findRequest(tx, auth.clientId, id, true);
    if (!r) throw notFound(ContractMessages.requestNotFound);
    assertNotTerminal(r.status);
    const v = await endRequest(
      tx,
      r,
      'void',
      { now, actor: actorOf(auth), extra: { voidReason: reason } },
      fx,
    );
    if (r.envelopeRef) await owe(tx, now, fx, CONTRACT_JOBS.voidEnvelope, { ref: r.envelopeRef, reason });
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_request.voided',
      at: now,
      target: target(r),
      metadata: { reason },
    });
    return v;
  });
  await runEffects(deps, fx);
  return requestView(deps, deps.db, r);
}

export async function remindRequest(
  deps: D,
  auth: ClientAuth,
  id: string,
  participantIds: string[] | undefined,
) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const fx: Effects = noEffects();
  const now = deps.clock.now();
  const minGap = deps.config.contractReminderMinIntervalSeconds;
  const r = await deps.db.transaction(async (tx) => {
    const r = await findRequest(tx, auth.clientId, id, true);
    if (!r) throw notFound(ContractMessages.requestNotFound);
    assertNotTerminal(r.status);
    if (r.delivery !== 'email') throw badRequest(ContractMessages.remindersNeedEmail);
    const ps = await participantsOf(tx, r.id);
    let targets: ParticipantRow[];
    if (participantIds) {
      targets = [];
      for (const pid of participantIds) {
        const p = ps.find((x) => x.id === pid);
        if (!p) throw notFound(ContractMessages.participantNotFound);
        assertNotCompleted(p.status);
        targets.push(p);
      }
    } else targets = ps.filter((p) => isActiveTurn(p.status));
    for (const p of targets) {
      if (p.lastRemindedAt && now.getTime() < p.lastRemindedAt.getTime() + minGap * 1000) {
        const resetAt = addSeconds(p.lastRemindedAt, minGap);
        throw tooManyRequests(ContractMessages.reminderTooSoon, secondsUntil(now, resetAt), 1, resetAt);
      }
    }
    for (const p of targets) {
      await updateParticipant(tx, p.id, { lastRemindedAt: now, updatedAt: now });
      await oweInvitation(tx, now, fx, p.id, true);
    }
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_request.reminded',
      at: now,
      target: target(r),
      metadata: { participant_ids: targets.map((p) => p.id) },
    });
    return r;
  });
  await runEffects(deps, fx);
  return requestView(deps, deps.db, r);
}

export async function correctParticipant(
  deps: D,
  auth: ClientAuth,
  id: string,
  participantId: string,
  input: { name?: string; email?: string },
) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'contracts');
  const fx: Effects = noEffects();
  const now = deps.clock.now();
  const r = await deps.db.transaction(async (tx) => {
    const r = await findRequest(tx, auth.clientId, id, true);
    if (!r) throw notFound(ContractMessages.requestNotFound);
    const p = (await participantsOf(tx, r.id)).find((x) => x.id === participantId);
    if (!p) throw notFound(ContractMessages.participantNotFound);
    assertNotTerminal(r.status);
    assertNotCompleted(p.status);
    const token = randomToken(32);
    const values = {
      name: input.name ?? p.name,
      email: input.email ?? p.email,
      tokenHash: keyedHash(deps.secrets.hashKey, token),
      tokenEnc: encrypt(deps.secrets.encryptionKey, token),
      otpHash: null,
      otpVerifiedAt: null,
      otpAttempts: 0,
      lastRemindedAt: null,
      updatedAt: now,
      // A vendor hosting the signing replaces its recipient (the old link stops working); until
      // then the participant is not handed over (contracts.replace_recipient).
      ...(r.envelopeRef && p.providerRecipientRef ? { providerRecipientRef: null } : {}),
    };
    if (r.envelopeRef && p.providerRecipientRef)
      await owe(tx, now, fx, CONTRACT_JOBS.replaceRecipient, {
        participantId: p.id,
        oldRef: p.providerRecipientRef,
      });
    let moved: ParticipantRow;
    if (canMoveParticipant('correct', p.status)) {
      moved = await moveParticipant(tx, p, 'correct', { now, extra: { ...values, viewedAt: null } });
      if (r.delivery === 'email') await oweInvitation(tx, now, fx, moved.id, false);
      if (r.envelopeRef)
        await owe(tx, now, fx, CONTRACT_JOBS.participantsInvited, {
          ref: r.envelopeRef,
          participantIds: [p.id],
        });
    } else moved = await updateParticipant(tx, p.id, values);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'contract_request.participant_corrected',
      at: now,
      target: target(r),
      changes: {
        ...(moved.name !== p.name ? { name: { from: p.name, to: moved.name } } : {}),
        ...(moved.email !== p.email ? { email: { from: p.email, to: moved.email } } : {}),
      },
      metadata: { participant_id: p.id },
    });
    return r;
  });
  await runEffects(deps, fx);
  return requestView(deps, deps.db, await requireRequest(deps, auth.clientId, r.id));
}

export async function downloadDocument(deps: D, clientId: string, id: string, documentId: string) {
  const r = await requireRequest(deps, clientId, id);
  const d = await documentContent(deps.db, r.id, documentId);
  if (!d) throw notFound('Document not found');
  return { fileName: d.fileName, content: d.content };
}

export async function downloadCertificate(deps: D, clientId: string, id: string) {
  const r = await requireRequest(deps, clientId, id);
  if (r.status !== 'completed' || !r.certificate) throw badRequest(ContractMessages.notCompleted);
  return { fileName: `certificate-${r.id}.pdf`, content: r.certificate };
}

export async function auditTrail(deps: D, clientId: string, id: string) {
  const r = await requireRequest(deps, clientId, id);
  const rows = await auditOf(deps.db, r.id);
  return {
    events: rows.map((e) => ({
      type: e.type,
      participant_id: e.participantId,
      occurred_at: e.occurredAt.toISOString(),
      ip: e.ip,
      user_agent: e.userAgent,
    })),
  };
}
