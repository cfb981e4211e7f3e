/**
 * The provider envelope of a pending request: created right after send (outside any transaction)
 * and, when the provider could not be reached, by the worker with a growing delay. Accepted: the
 * request is `sent`, the first group invited and on_send CCs emailed. Refused: `failed`.
 */
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import { contractRequests } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { decrypt } from '../../shared/crypto';
import { type Effects, noEffects, runEffects } from './requests.effects';
import { ccOnSendMail } from './requests.mail';
import { inviteNextGroups } from './requests.progress';
import { documentsOf, lockRequestById, participantsOf, updateRequest } from './requests.repo';
import { AUTOMATIC, moveRequest } from './requests.transitions';

export async function createEnvelopeFor(deps: Deps, requestId: string): Promise<void> {
  const [r] = await deps.db.select().from(contractRequests).where(eq(contractRequests.id, requestId));
  if (r?.status !== 'pending') return;
  const [ps, docs] = await Promise.all([participantsOf(deps.db, r.id), documentsOf(deps.db, r.id)]);
  let result: Awaited<ReturnType<Deps['providers']['esign']['createEnvelope']>>;
  try {
    result = await deps.providers.esign.createEnvelope({
      requestId: r.id,
      title: r.title,
      documents: docs
        .filter((d) => d.kind === 'original')
        .map((d) => ({ fileName: d.fileName, sha256: d.sha256 })),
      participants: ps.map((p) => ({ participantId: p.id, role: p.role, name: p.name, email: p.email })),
    });
  } catch (err) {
    deps.log.warn({ err, requestId }, 'e-signing envelope creation failed; the worker retries');
    const now = deps.clock.now();
    await updateRequest(deps.db, r.id, {
      envelopeAttempts: r.envelopeAttempts + 1,
      nextEnvelopeAttemptAt: addSeconds(now, Math.min(3600, 30 * 2 ** r.envelopeAttempts)),
    });
    return;
  }
  const fx: Effects = noEffects();
  await deps.db.transaction(async (tx) => {
    const cur = await lockRequestById(tx, r.id);
    if (cur?.status !== 'pending') return;
    const now = deps.clock.now();
    if (!result.accepted) {
      await moveRequest(tx, cur, 'fail', {
        now,
        actor: AUTOMATIC,
        extra: { statusReason: result.reason, envelopeRef: result.ref },
      });
      fx.workflowRequestIds.push(cur.id);
      return;
    }
    let sent = await moveRequest(tx, cur, 'accept', {
      now,
      actor: AUTOMATIC,
      extra: { envelopeRef: result.ref, nextEnvelopeAttemptAt: null },
    });
    sent = await inviteNextGroups(deps, tx, sent, now, fx);
    if (sent.delivery === 'email' && sent.viewTokenEnc) {
      const url = `${deps.config.publicUrl}/sign/${decrypt(deps.secrets.encryptionKey, sent.viewTokenEnc)}`;
      const cc = sent.ccRecipients.map((c) => {
        if (c.when !== 'on_send') return c;
        fx.mails.push(ccOnSendMail(c, sent.title, url));
        return { ...c, sent_at: now.toISOString() };
      });
      await updateRequest(tx, sent.id, { ccRecipients: cc });
    }
    fx.workflowRequestIds.push(cur.id);
  });
  await runEffects(deps, fx);
}

/** Worker: pending requests without an envelope whose retry time has come. */
export async function retryPendingEnvelopes(deps: Deps, limit = 10): Promise<number> {
  const now = deps.clock.now();
  const rows = await deps.db
    .select({ id: contractRequests.id })
    .from(contractRequests)
    .where(
      and(
        eq(contractRequests.status, 'pending'),
        isNull(contractRequests.envelopeRef),
        or(isNull(contractRequests.nextEnvelopeAttemptAt), lte(contractRequests.nextEnvelopeAttemptAt, now)),
        lte(contractRequests.createdAt, sql`${addSeconds(now, -5)}`),
      ),
    )
    .limit(limit);
  for (const r of rows) await createEnvelopeFor(deps, r.id);
  return rows.length;
}
