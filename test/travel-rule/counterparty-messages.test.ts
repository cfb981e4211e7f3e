/**
 * Messages a transfer owes its counterparty VASP (docs/vendors/trp.md, review S4/S6) are the job
 * `travel_rule.counterparty_message`, written with the change that owes them and tried at once after
 * the commit: a confirmation (`txid`) the beneficiary VASP cannot take is sent again after the job's
 * back-off until it takes it; a refusal (4xx) stops it at once and is recorded on the transfer
 * (activity entry, notification); a cancel after the approval goes to the approval's callback; an
 * approval of another address is refused and the beneficiary told (`canceled`); an inbound transfer
 * left unreviewed until it expires is answered `rejected` to the originator VASP.
 * The network is the sandbox simulator with `send`, `confirm` and `cancel` replaced by recorders.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { activityLogs, notifications } from '../../src/db/schema/index';
import { OTHER_ADDRESS_REASON } from '../../src/modules/travel-rule/answers.service';
import {
  COUNTERPARTY_MESSAGE_JOB,
  MESSAGE_FAILED_ACTION,
  OTHER_ADDRESS_CANCEL_REASON,
  REVIEW_EXPIRED_REASON,
} from '../../src/modules/travel-rule/counterparty-messages.service';
import {
  type TransferMessage,
  type TravelRuleNotification,
  TravelRuleProviderError,
} from '../../src/providers/travel-rule/port';
import type { SandboxTravelRuleNetwork } from '../../src/providers/travel-rule/simulator';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { api, evm, runDueTimers, transferBody, travelRuleClient } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp();
  call = api(ctx);
  owner = await travelRuleClient(ctx);
}, 120_000);
afterAll(() => ctx?.close());

const CALLBACK = 'https://peer.example/confirm/1';
const net = () => ctx.deps.providers.travelRule;
const original: { send?: unknown; cancel?: unknown } = {};
afterEach(() => {
  delete net().confirm;
  if (original.send) net().send = original.send as never;
  if (original.cancel) net().cancel = original.cancel as never;
});

/** An outbound transfer the beneficiary VASP approved (for `address`), with its confirmation callback. */
async function approved(approvedAddress?: string) {
  const address = evm('abcd');
  original.send ??= net().send;
  net().send = async (msg: TransferMessage): Promise<TravelRuleNotification> => ({
    type: 'transfer.accepted',
    eventId: crypto.randomUUID(),
    reference: msg.transferId,
    revision: 1,
    reason: null,
    repairFields: null,
    counterpartyCallback: CALLBACK,
    approvedAddress: approvedAddress ?? address,
  });
  const res = await call('POST', '/travel-rule/transfers', owner.headers, transferBody(address));
  net().send = original.send as never;
  expect(res.statusCode).toBe(201);
  return res.json() as { transfer_id: string; status: string; status_reason: string | null };
}

async function jobOf(transferId: string, message: string) {
  const r = await ctx.db.execute(
    sql`select status, attempts, last_error from jobs
         where kind = ${COUNTERPARTY_MESSAGE_JOB} and dedupe_key = ${`${transferId}:${message}`}`,
  );
  return rowsOf<{ status: string; attempts: number; last_error: string | null }>(r)[0];
}

const down = () => new TravelRuleProviderError('trp confirmation: timeout', { retryable: true });
const refused = () => new TravelRuleProviderError('trp confirmation: HTTP 400', { retryable: false });
const hash = `0x${'ab'.repeat(32)}`;

describe('the transaction confirmation (txid)', () => {
  it('the peer fails twice, then takes it: sent at once, then again after each back-off, same message', async () => {
    const t = await approved();
    expect(t.status).toBe('accepted');
    // The delivery set the response deadline's timer, and the approval in its reply (same
    // transaction) took the transfer out of the awaiting statuses, which removed it again.
    const timer = await ctx.db.execute(
      sql`select run_at from jobs where kind = 'travel_rule.transfer_expiry'
           and dedupe_key = ${`travel-rule-transfer:${t.transfer_id}`}`,
    );
    expect(rowsOf(timer)).toHaveLength(0);
    const calls: unknown[][] = [];
    let failures = 2;
    net().confirm = async (...args) => {
      calls.push(args);
      if (failures-- > 0) throw down();
    };
    const res = await call('POST', `/travel-rule/transfers/${t.transfer_id}/tx-hash`, owner.headers, {
      tx_hash: hash,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('completed');
    // The first attempt ran after the commit and failed: the job waits for its back-off.
    expect(calls.length).toBe(1);
    expect(await jobOf(t.transfer_id, 'txid')).toMatchObject({ status: 'pending', attempts: 1 });
    await runJobs(ctx);
    expect(calls.length).toBe(1);
    ctx.clock.advanceSeconds(30);
    await runJobs(ctx);
    expect(calls.length).toBe(2);
    ctx.clock.advanceSeconds(120);
    await runJobs(ctx);
    expect(calls).toEqual([
      [t.transfer_id, CALLBACK, hash],
      [t.transfer_id, CALLBACK, hash],
      [t.transfer_id, CALLBACK, hash],
    ]);
    expect(await jobOf(t.transfer_id, 'txid')).toMatchObject({ status: 'done', attempts: 3 });
    const acts = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.targetId, t.transfer_id), eq(activityLogs.action, MESSAGE_FAILED_ACTION)));
    expect(acts).toEqual([]);
  });

  it('a refusal (4xx) stops it at once: logged, recorded on the transfer, owner and operations notified', async () => {
    const t = await approved();
    let calls = 0;
    net().confirm = async () => {
      calls++;
      throw refused();
    };
    const res = await call('POST', `/travel-rule/transfers/${t.transfer_id}/tx-hash`, owner.headers, {
      tx_hash: hash,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('completed');
    // Past the first back-off: a refused message is not tried again.
    ctx.clock.advanceSeconds(60);
    await runJobs(ctx);
    expect(calls).toBe(1);
    expect(await jobOf(t.transfer_id, 'txid')).toMatchObject({
      status: 'dead',
      attempts: 1,
      last_error: 'trp confirmation: HTTP 400',
    });
    const acts = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.targetId, t.transfer_id), eq(activityLogs.action, MESSAGE_FAILED_ACTION)));
    expect(acts).toHaveLength(1);
    expect(acts[0]).toMatchObject({
      clientId: owner.clientId,
      outcome: 'failure',
      metadata: expect.objectContaining({ message: 'txid', error: 'trp confirmation: HTTP 400' }),
    });
    const notes = await ctx.db
      .select()
      .from(notifications)
      .where(
        and(
          eq(notifications.clientId, owner.clientId),
          eq(notifications.title, 'Travel-rule message to the counterparty VASP failed'),
        ),
      );
    expect(notes.length).toBeGreaterThan(0);
    expect(notes[0]!.body).toContain('the transaction confirmation could not be delivered');
  });
});

describe('cancel', () => {
  it('a cancel after the approval goes to the approval callback (a job, deduplicated per transfer)', async () => {
    const t = await approved();
    const calls: unknown[][] = [];
    original.cancel ??= net().cancel;
    net().cancel = async (...args) => {
      calls.push(args);
      if (calls.length === 1) throw down();
    };
    const res = await call('POST', `/travel-rule/transfers/${t.transfer_id}/cancel`, owner.headers);
    expect(res.json().status).toBe('canceled');
    ctx.clock.advanceSeconds(30);
    await runJobs(ctx);
    expect(calls.length).toBe(2);
    expect(calls[1]).toEqual([t.transfer_id, expect.any(String), CALLBACK, null]);
    expect(await jobOf(t.transfer_id, 'canceled')).toMatchObject({ status: 'done', attempts: 2 });
  });
});

describe('what the other side was not told before (S6)', () => {
  it('an approval of another address is refused: rejected, and the beneficiary VASP is sent canceled', async () => {
    const calls: unknown[][] = [];
    original.cancel ??= net().cancel;
    net().cancel = async (...args) => {
      calls.push(args);
    };
    const t = await approved(evm('ffff'));
    expect(t).toMatchObject({ status: 'rejected', status_reason: OTHER_ADDRESS_REASON });
    await runJobs(ctx);
    expect(calls).toEqual([[t.transfer_id, expect.any(String), CALLBACK, OTHER_ADDRESS_CANCEL_REASON]]);
    expect(await jobOf(t.transfer_id, 'canceled')).toMatchObject({ status: 'done', attempts: 1 });
  });

  const sim = () => ctx.deps.providers.travelRule as SandboxTravelRuleNetwork;
  const inbound = async () => {
    const res = await call('POST', '/sandbox/travel-rule/inbound', owner.headers, {
      asset: 'ETH',
      chain: 'ethereum',
      amount: '1',
      fiat_value: { amount: '900.00', currency: 'EUR' },
      originator: {
        type: 'natural',
        first_name: 'O',
        last_name: 'P',
        account_number: 'o',
        date_of_birth: '1990-01-01',
      },
      beneficiary: { type: 'natural', first_name: 'Q', last_name: 'R', account_number: 'b' },
      beneficiary_address: evm('abd3'),
    });
    expect(res.json().status).toBe('awaiting_review');
    const id = res.json().transfer_id as string;
    const row = await ctx.db.query.travelRuleTransfers.findFirst({ where: (t, { eq }) => eq(t.id, id) });
    return { id, networkRef: row!.networkRef! };
  };
  const answers = async (networkRef: string) =>
    (await sim().logOf(networkRef)).map((l) => (l.payload as { log: unknown }).log);

  it('declining an inbound transfer answers the originator VASP rejected with the reason (a job)', async () => {
    const t = await inbound();
    await call('POST', `/travel-rule/transfers/${t.id}/reject`, owner.headers, {
      reason: 'Unknown customer',
    });
    expect(await answers(t.networkRef)).toEqual([{ answer: 'rejected', reason: 'Unknown customer' }]);
    expect(await jobOf(t.id, 'rejected')).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('(last: moves the clock) an inbound transfer left unreviewed expires and the originator VASP is told', async () => {
    const t = await inbound();
    ctx.clock.advanceSeconds((ctx.deps.config.travelRuleResponseTimeoutHours + 1) * 3600);
    // Tokens do not live that long: the same client signs in again.
    owner = await createTestClient(ctx, { clientId: owner.clientId });
    // The deadline is a timer the jobs runner runs (travel_rule.transfer_expiry); the rejection it
    // owes the originator VASP is a job written with the move.
    await runJobs(ctx);
    const now = (await call('GET', `/travel-rule/transfers/${t.id}`, owner.headers)).json();
    expect(now).toMatchObject({ status: 'expired', status_reason: 'Not reviewed in time' });
    expect(await answers(t.networkRef)).toEqual([{ answer: 'rejected', reason: REVIEW_EXPIRED_REASON }]);
    expect(await runDueTimers(ctx)).toBe(0);
  });
});
