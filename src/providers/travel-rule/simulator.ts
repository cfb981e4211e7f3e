/**
 * The sandbox travel-rule network (docs/guides/travel-rule.md): a directory of five VASPs with fixed
 * ids and fixed behaviour, discovery by address suffix, and counterparty answers delivered through
 * the signed inbound route, so the production code path runs. A delayed answer is a timer job
 * (src/providers/sandbox-deliveries.ts) run by the jobs runner. `sandbox_travel_rule_jobs` is the
 * network's own log (what it received, what it answered: the Repair VASP's second answer and the
 * answers' revisions follow from it).
 */
import { and, count, eq, isNotNull } from 'drizzle-orm';
import { sandboxTravelRuleJobs } from '../../db/schema/travel-rule';
import { newId } from '../../shared/ids';
import {
  cancelSandboxDeliveries,
  SANDBOX_TRAVEL_RULE_DELIVERY,
  scheduleSandboxDelivery,
} from '../sandbox-deliveries';
import { signProviderPayload, verifyProviderSignature } from '../signature';
import {
  type Discovery,
  type InboundTransferData,
  type SimulateAction,
  TRAVEL_RULE_SIGNATURE_HEADER,
  type TransferMessage,
  type TravelRuleAttachContext,
  type TravelRuleNetwork,
  type TravelRuleNotification,
  TravelRuleProviderError,
  type TravelRuleSandbox,
  type Vasp,
} from './port';

export const SANDBOX_VASP_IDS = {
  accept: '5a4d0000-0000-4000-8000-000000000001',
  repair: '5a4d0000-0000-4000-8000-000000000002',
  reject: '5a4d0000-0000-4000-8000-000000000003',
  silent: '5a4d0000-0000-4000-8000-000000000004',
  offline: '5a4d0000-0000-4000-8000-000000000005',
} as const;

export const SANDBOX_VASPS: readonly Vasp[] = [
  {
    vasp_id: SANDBOX_VASP_IDS.accept,
    name: 'Sandbox VASP Accept',
    country: 'DE',
    lei: '5493000SANDBOXACC01',
    reachable: true,
  },
  {
    vasp_id: SANDBOX_VASP_IDS.repair,
    name: 'Sandbox VASP Repair',
    country: 'FR',
    lei: '5493000SANDBOXREP02',
    reachable: true,
  },
  {
    vasp_id: SANDBOX_VASP_IDS.reject,
    name: 'Sandbox VASP Reject',
    country: 'NL',
    lei: '5493000SANDBOXREJ03',
    reachable: true,
  },
  {
    vasp_id: SANDBOX_VASP_IDS.silent,
    name: 'Sandbox VASP Silent',
    country: 'IE',
    lei: '5493000SANDBOXSIL04',
    reachable: true,
  },
  {
    vasp_id: SANDBOX_VASP_IDS.offline,
    name: 'Sandbox VASP Offline',
    country: 'AT',
    lei: '5493000SANDBOXOFF05',
    reachable: false,
  },
];

export const SANDBOX_VASP_DOC =
  'Sandbox directory (fixed ids): ' +
  SANDBOX_VASPS.map((v) => `\`${v.vasp_id}\` ${v.name}`).join(', ') +
  '. Accept accepts after SVC_SANDBOX_TRAVEL_RULE_DELAY_SECONDS; Repair asks for `beneficiary.last_name` once, then ' +
  'accepts; Reject rejects; Silent never answers (the transfer expires); Offline is not reachable. Without ' +
  '`beneficiary_vasp_id`, discovery goes by the counterparty address suffix: `1111` unhosted, `2222` Offline, ' +
  'anything else Accept.';

const byId = (id: string) => SANDBOX_VASPS.find((v) => v.vasp_id === id);

export type { SimulateAction } from './port';

export class SandboxTravelRuleNetwork implements TravelRuleNetwork, TravelRuleSandbox {
  readonly configured = true;
  /** The simulator is its own sandbox capability. */
  get sandbox(): TravelRuleSandbox {
    return this;
  }
  private ctx: TravelRuleAttachContext | null = null;
  constructor(private readonly opts: { secret: string; delaySeconds: number }) {}

  attach(ctx: TravelRuleAttachContext): void {
    this.ctx = ctx;
  }

  private get c(): TravelRuleAttachContext {
    if (!this.ctx) throw new TravelRuleProviderError('sandbox travel-rule network is not attached');
    return this.ctx;
  }

  async directory(): Promise<Vasp[]> {
    return SANDBOX_VASPS.map((v) => ({ ...v }));
  }

  async discover(_chain: string, address: string): Promise<Discovery> {
    const suffix = address.slice(-4).toLowerCase();
    if (suffix === '1111') return { hosted: false };
    return {
      hosted: true,
      vasp: { ...byId(suffix === '2222' ? SANDBOX_VASP_IDS.offline : SANDBOX_VASP_IDS.accept)! },
    };
  }

  async send(msg: TransferMessage): Promise<void> {
    const vasp = byId(msg.vaspId);
    if (!vasp) throw new TravelRuleProviderError('unknown VASP');
    if (!vasp.reachable) throw new TravelRuleProviderError(`${vasp.name} is not reachable`);
    const { db, clock } = this.c;
    const [prior] = await db
      .select({ n: count() })
      .from(sandboxTravelRuleJobs)
      .where(
        and(eq(sandboxTravelRuleJobs.subjectRef, msg.transferId), eq(sandboxTravelRuleJobs.kind, 'sent')),
      );
    await this.log(msg.transferId, 'sent', { vasp_id: msg.vaspId });
    const due = new Date(clock.now().getTime() + this.opts.delaySeconds * 1000);
    if (vasp.vasp_id === SANDBOX_VASP_IDS.accept)
      await this.schedule(msg.transferId, 'transfer.accepted', {}, due);
    else if (vasp.vasp_id === SANDBOX_VASP_IDS.reject)
      await this.schedule(
        msg.transferId,
        'transfer.rejected',
        { reason: 'Beneficiary is not a customer of this VASP' },
        due,
      );
    else if (vasp.vasp_id === SANDBOX_VASP_IDS.repair)
      await ((prior?.n ?? 0) === 0
        ? this.schedule(
            msg.transferId,
            'transfer.repair_requested',
            { repair_fields: ['beneficiary.last_name'] },
            due,
          )
        : this.schedule(msg.transferId, 'transfer.accepted', {}, due));
    // Silent never answers.
  }

  async respond(networkRef: string, answer: 'accepted' | 'rejected', reason: string | null): Promise<void> {
    await this.log(networkRef, 'responded', { answer, reason });
  }

  async cancel(transferId: string, vaspId: string): Promise<void> {
    // The answer not yet sent is never sent.
    await cancelSandboxDeliveries(this.c.db, SANDBOX_TRAVEL_RULE_DELIVERY, transferId);
    await this.log(transferId, 'canceled', { vasp_id: vaspId });
  }

  /** Sandbox simulate endpoint: the counterparty answers now, through the signed route. */
  async simulate(transferId: string, action: SimulateAction, repairFields: string[] | null) {
    const type = {
      accept: 'transfer.accepted',
      reject: 'transfer.rejected',
      request_repair: 'transfer.repair_requested',
      expire: 'transfer.expired',
    }[action];
    const extra =
      action === 'reject'
        ? { reason: 'Rejected by the counterparty (simulated)' }
        : action === 'request_repair'
          ? { repair_fields: repairFields ?? ['beneficiary.last_name'] }
          : {};
    await this.send_({
      type,
      reference: transferId,
      revision: await this.nextRevision(transferId),
      ...extra,
    });
  }

  /** Sandbox: an originator VASP sends the client an inbound transfer; returns the network's id. */
  async simulateInbound(recipientClientId: string, data: Omit<InboundTransferData, 'originator_vasp'>) {
    const reference = newId();
    const vasp = byId(SANDBOX_VASP_IDS.accept)!;
    await this.send_({
      type: 'transfer.inbound',
      reference,
      revision: 1,
      recipient: recipientClientId,
      transfer: {
        ...data,
        originator_vasp: { vasp_id: vasp.vasp_id, name: vasp.name, country: vasp.country },
      },
    });
    return reference;
  }

  /** What the simulator logged for a subject (tests): kinds in order. */
  async logOf(subjectRef: string) {
    return this.c.db
      .select()
      .from(sandboxTravelRuleJobs)
      .where(eq(sandboxTravelRuleJobs.subjectRef, subjectRef))
      .orderBy(sandboxTravelRuleJobs.createdAt);
  }

  async deliverScheduled(body: Record<string, unknown>): Promise<void> {
    await this.send_(body);
  }

  private async nextRevision(subjectRef: string) {
    const [r] = await this.c.db
      .select({ n: count() })
      .from(sandboxTravelRuleJobs)
      .where(and(eq(sandboxTravelRuleJobs.subjectRef, subjectRef), isNotNull(sandboxTravelRuleJobs.payload)));
    return (r?.n ?? 0) + 1;
  }

  private async log(subjectRef: string, kind: string, payload: Record<string, unknown> | null) {
    await this.c.db.insert(sandboxTravelRuleJobs).values({
      subjectRef,
      kind,
      payload: payload === null ? null : { log: payload },
      createdAt: this.c.clock.now(),
    });
  }

  /** Logs the answer (its revision counts) and schedules its delivery, in one transaction. */
  private async schedule(subjectRef: string, type: string, extra: Record<string, unknown>, dueAt: Date) {
    const { db, clock } = this.c;
    const revision = await this.nextRevision(subjectRef);
    const body = { type, reference: subjectRef, revision, ...extra };
    await db.transaction(async (tx) => {
      await tx.insert(sandboxTravelRuleJobs).values({
        subjectRef,
        kind: 'answer',
        payload: body,
        createdAt: clock.now(),
      });
      await scheduleSandboxDelivery(tx, clock, SANDBOX_TRAVEL_RULE_DELIVERY, {
        subject: subjectRef,
        body,
        dueAt,
      });
    });
  }

  private async send_(payload: Record<string, unknown>) {
    const now = this.c.clock.now();
    const raw = JSON.stringify({ event_id: newId(), occurred_at: now.toISOString(), ...payload });
    const res = await this.c.deliver(raw, {
      'content-type': 'application/json',
      [TRAVEL_RULE_SIGNATURE_HEADER.toLowerCase()]: signProviderPayload(this.opts.secret, raw, now),
    });
    if (res.statusCode >= 300)
      throw new TravelRuleProviderError(
        `travel-rule notification was refused (${res.statusCode}): ${res.body}`,
      );
  }

  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): TravelRuleNotification | null {
    const header = headers[TRAVEL_RULE_SIGNATURE_HEADER.toLowerCase()];
    if (typeof header !== 'string') return null;
    if (!verifyProviderSignature(this.opts.secret, rawBody, header, this.c.clock.now())) return null;
    return parseTravelRuleNotification(rawBody);
  }
}

const ANSWERS = [
  'transfer.accepted',
  'transfer.rejected',
  'transfer.repair_requested',
  'transfer.expired',
] as const;

/** Parses a (verified) notification body; null when it is not one the service understands. */
export function parseTravelRuleNotification(rawBody: string): TravelRuleNotification | null {
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(rawBody) as Record<string, unknown>;
  } catch {
    return null;
  }
  const eventId = typeof b.event_id === 'string' ? b.event_id : null;
  const reference = typeof b.reference === 'string' ? b.reference : null;
  const revision = typeof b.revision === 'number' && Number.isInteger(b.revision) ? b.revision : null;
  if (!eventId || !reference || revision === null) return null;
  const type = ANSWERS.find((t) => t === b.type);
  if (type) {
    const rf = Array.isArray(b.repair_fields) ? b.repair_fields.map(String) : null;
    return {
      type,
      eventId,
      reference,
      revision,
      reason: typeof b.reason === 'string' ? b.reason : null,
      repairFields: rf,
    };
  }
  if (
    b.type === 'transfer.inbound' &&
    typeof b.recipient === 'string' &&
    b.transfer &&
    typeof b.transfer === 'object'
  )
    return {
      type: 'transfer.inbound',
      eventId,
      reference,
      revision,
      recipient: b.recipient,
      transfer: b.transfer as InboundTransferData,
    };
  return null;
}
