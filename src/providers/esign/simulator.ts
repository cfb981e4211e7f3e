/**
 * The sandbox e-signing provider. It keeps its envelopes (and the delayed `+autosign` /
 * `+autodecline` actions) in its own tables and reports every change as a signed notification
 * POSTed through the service's real `/api/v1/providers/esign/notifications` route, so the production
 * path (signature check, replay protection, transitions) always runs. Magic inputs: a title starting
 * with `FAIL` is not processed; an email local part ending in `+bounce` bounces at invitation,
 * `+autosign` signs and `+autodecline` declines SVC_SANDBOX_ESIGN_AUTO_SECONDS after its turn starts
 * (a timer job per participant, src/providers/sandbox-deliveries.ts, run by the jobs runner; a void
 * removes the envelope's pending ones).
 */
import { eq, sql } from 'drizzle-orm';
import { sandboxEsignEnvelopes } from '../../db/schema/index';
import { addSeconds } from '../../shared/clock';
import { newId, randomToken } from '../../shared/ids';
import {
  cancelSandboxDeliveries,
  SANDBOX_ESIGN_ACTION,
  scheduleSandboxDelivery,
} from '../sandbox-deliveries';
import { signProviderPayload, verifyProviderSignature } from '../signature';
import {
  type EnvelopeInput,
  type EnvelopeResult,
  ESIGN_NOTIFICATION_TYPES,
  ESIGN_SIGNATURE_HEADER,
  type EsignAttachContext,
  type EsignNotification,
  type EsignNotificationType,
  type EsignProvider,
  EsignProviderError,
  type ParticipantAction,
  type SimulateAction,
} from './port';

const localPart = (email: string) => email.split('@')[0]!.toLowerCase();
export const magicOf = (email: string): 'autosign' | 'autodecline' | 'bounce' | null => {
  const l = localPart(email);
  if (l.endsWith('+autosign')) return 'autosign';
  if (l.endsWith('+autodecline')) return 'autodecline';
  if (l.endsWith('+bounce')) return 'bounce';
  return null;
};

const SIM_TYPES: Record<SimulateAction, EsignNotificationType> = {
  view: 'participant.viewed',
  sign: 'participant.signed',
  decline: 'participant.declined',
  bounce: 'participant.bounced',
  expire: 'envelope.expired',
  fail: 'envelope.failed',
};

export class SandboxEsign implements EsignProvider {
  readonly name = 'simulator';
  readonly configured = true;
  private ctx: EsignAttachContext | null = null;

  constructor(private readonly opts: { secret: string; autoSeconds: number }) {}

  attach(ctx: EsignAttachContext): void {
    this.ctx = ctx;
  }

  private get c(): EsignAttachContext {
    if (!this.ctx) throw new EsignProviderError('sandbox e-signing provider is not attached');
    return this.ctx;
  }

  async createEnvelope(input: EnvelopeInput): Promise<EnvelopeResult> {
    const ref = `env_${randomToken(12)}`;
    const failed = input.title.startsWith('FAIL');
    await this.c.db.insert(sandboxEsignEnvelopes).values({
      ref,
      externalId: input.requestId,
      title: input.title,
      status: failed ? 'failed' : 'sent',
      createdAt: this.c.clock.now(),
      updatedAt: this.c.clock.now(),
    });
    return failed
      ? { accepted: false, ref, reason: 'Document could not be processed' }
      : { accepted: true, ref };
  }

  async voidEnvelope(ref: string): Promise<void> {
    await this.c.db
      .update(sandboxEsignEnvelopes)
      .set({ status: 'voided', updatedAt: this.c.clock.now() })
      .where(eq(sandboxEsignEnvelopes.ref, ref));
    // A voided envelope's participants act no more.
    await cancelSandboxDeliveries(this.c.db, SANDBOX_ESIGN_ACTION, ref);
  }

  async participantsInvited(ref: string, participants: { participantId: string; email: string }[]) {
    for (const p of participants) {
      const magic = magicOf(p.email);
      if (magic === 'bounce') await this.emit(ref, 'participant.bounced', { participantId: p.participantId });
      else if (magic === 'autosign' || magic === 'autodecline')
        // One timer per participant of the envelope: told twice (a retried job), it moves, not doubles.
        await scheduleSandboxDelivery(this.c.db, this.c.clock, SANDBOX_ESIGN_ACTION, {
          id: `${ref}:${p.participantId}`,
          subject: ref,
          body: {
            envelope_ref: ref,
            type: magic === 'autosign' ? 'participant.signed' : 'participant.declined',
            participant_id: p.participantId,
            reason: magic === 'autodecline' ? 'Sandbox decline' : null,
          },
          dueAt: addSeconds(this.c.clock.now(), this.opts.autoSeconds),
        });
    }
  }

  async reportAction(a: ParticipantAction): Promise<void> {
    await this.emit(a.envelopeRef, a.type, {
      participantId: a.participantId,
      reason: a.reason ?? null,
      ip: a.ip ?? null,
      userAgent: a.userAgent ?? null,
      values: a.values ?? {},
    });
  }

  async simulate(ref: string, action: SimulateAction, participantId: string | null, reason: string | null) {
    await this.emit(ref, SIM_TYPES[action], {
      participantId,
      reason:
        reason ??
        (action === 'decline'
          ? 'Sandbox decline'
          : action === 'fail'
            ? 'Document could not be processed'
            : null),
    });
  }

  async deliverScheduled(body: Record<string, unknown>): Promise<boolean> {
    const ref = String(body.envelope_ref);
    const [env] = await this.c.db
      .select({ status: sandboxEsignEnvelopes.status })
      .from(sandboxEsignEnvelopes)
      .where(eq(sandboxEsignEnvelopes.ref, ref));
    if (!env || env.status === 'voided' || env.status === 'failed') return false;
    await this.emit(ref, body.type as EsignNotificationType, {
      participantId: typeof body.participant_id === 'string' ? body.participant_id : null,
      reason: typeof body.reason === 'string' ? body.reason : null,
    });
    return true;
  }

  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): EsignNotification | null {
    const h = headers[ESIGN_SIGNATURE_HEADER];
    if (!verifyProviderSignature(this.opts.secret, rawBody, Array.isArray(h) ? h[0] : h, this.c.clock.now()))
      return null;
    return parseNotification(rawBody);
  }

  private async emit(
    ref: string,
    type: EsignNotificationType,
    p: {
      participantId?: string | null;
      reason?: string | null;
      ip?: string | null;
      userAgent?: string | null;
      values?: Record<string, string>;
    },
  ) {
    const [env] = await this.c.db
      .update(sandboxEsignEnvelopes)
      .set({ revision: sql`${sandboxEsignEnvelopes.revision} + 1`, updatedAt: this.c.clock.now() })
      .where(eq(sandboxEsignEnvelopes.ref, ref))
      .returning({ revision: sandboxEsignEnvelopes.revision });
    if (!env) throw new EsignProviderError(`unknown envelope ${ref}`);
    const now = this.c.clock.now();
    const body = JSON.stringify({
      event_id: newId(),
      envelope_ref: ref,
      revision: env.revision,
      type,
      participant_id: p.participantId ?? null,
      reason: p.reason ?? null,
      ip: p.ip ?? null,
      user_agent: p.userAgent ?? null,
      values: p.values ?? {},
      occurred_at: now.toISOString(),
    });
    const res = await this.c.deliver(body, {
      'content-type': 'application/json',
      [ESIGN_SIGNATURE_HEADER]: signProviderPayload(this.opts.secret, body, now),
    });
    if (res.statusCode >= 300)
      throw new EsignProviderError(`notification refused: ${res.statusCode} ${res.body}`);
  }
}

export function parseNotification(rawBody: string): EsignNotification | null {
  try {
    const b = JSON.parse(rawBody) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    if (typeof b.event_id !== 'string' || typeof b.envelope_ref !== 'string') return null;
    if (!Number.isInteger(b.revision) || !ESIGN_NOTIFICATION_TYPES.includes(b.type as EsignNotificationType))
      return null;
    const values: Record<string, string> = {};
    if (b.values && typeof b.values === 'object')
      for (const [k, v] of Object.entries(b.values as object)) if (typeof v === 'string') values[k] = v;
    const at = new Date(str(b.occurred_at) ?? '');
    return {
      eventId: b.event_id,
      envelopeRef: b.envelope_ref,
      revision: b.revision as number,
      type: b.type as EsignNotificationType,
      participantId: str(b.participant_id),
      reason: str(b.reason),
      ip: str(b.ip),
      userAgent: str(b.user_agent),
      values,
      occurredAt: Number.isNaN(at.getTime()) ? new Date() : at,
    };
  } catch {
    return null;
  }
}
