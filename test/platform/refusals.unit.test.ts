/**
 * A move the table refuses is the 4xx (with its catalogue message) the same action answers through
 * the API, in every feature. Before the status machines shared one transition function, these
 * features' move functions threw a plain Error here, which the API answers with a 500. The table's
 * check comes before any statement, so the rows need only what the check reads.
 */
import { describe, expect, it } from 'vitest';
import type { DbOrTx, Tx } from '../../src/db/client';
import type { ParticipantRow, RequestRow } from '../../src/modules/contracts/requests/requests.repo';
import { moveParticipant, moveRequest } from '../../src/modules/contracts/requests/requests.transitions';
import type { MonitoredTransactionRow } from '../../src/modules/monitoring/monitoring.repo';
import { moveDecision } from '../../src/modules/monitoring/monitoring.transitions';
import { moveOwnership, type OwnershipRow } from '../../src/modules/screening/ownership.machine';
import type { TicketRow } from '../../src/modules/tickets/tickets.repo';
import { moveTicket } from '../../src/modules/tickets/tickets.transitions';
import type { EventBus } from '../../src/platform/events';
import { AppError } from '../../src/shared/errors';

/** Any statement would fail the test: a refusal must come before the database is touched. */
const noDatabase = new Proxy({} as DbOrTx, {
  get() {
    throw new Error('the database was used');
  },
});
/** Nor may a refused move tell other features anything. */
const noEvents: EventBus = {
  emit() {
    throw new Error('an event was emitted');
  },
};
const now = new Date('2026-01-15T10:00:00Z');
const id = '00000000-0000-4000-8000-000000000001';

async function refusal(move: Promise<unknown>) {
  const err = await move.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const { statusCode, detail } = err as AppError;
  return { statusCode, detail };
}

describe('a refused move answers the 4xx of the same action', () => {
  it('tickets: the client actions and the staff move', async () => {
    const ticket = (status: TicketRow['status']) => ({ id, status }) as TicketRow;
    const ctx = { now, actorType: null };
    expect(await refusal(moveTicket(noDatabase, ticket('open'), 'client_close', ctx))).toEqual({
      statusCode: 400,
      detail: 'Only resolved tickets can be closed by the client',
    });
    expect(await refusal(moveTicket(noDatabase, ticket('resolved'), 'client_reopen', ctx))).toEqual({
      statusCode: 400,
      detail: 'Only closed tickets can be reopened',
    });
    expect(await refusal(moveTicket(noDatabase, ticket('closed'), 'client_message', ctx))).toEqual({
      statusCode: 400,
      detail: 'Closed tickets must be reopened before replying',
    });
    expect(await refusal(moveTicket(noDatabase, ticket('closed'), 'staff_resolve', ctx))).toEqual({
      statusCode: 400,
      detail: "Ticket cannot move from 'closed' to 'resolved'",
    });
  });

  it('monitoring: a final decision, and a remediation that is not pending', async () => {
    const row = (decision: MonitoredTransactionRow['decision']) =>
      ({ id, decision }) as MonitoredTransactionRow;
    const ctx = { now, publicUrl: 'https://svc.example.com', reason: null };
    expect(await refusal(moveDecision(noDatabase, row('APPROVED'), 'review_decline', ctx))).toEqual({
      statusCode: 400,
      detail: 'Monitored transaction already has a final decision',
    });
    expect(await refusal(moveDecision(noDatabase, row('IN_REVIEW'), 'remediation_submitted', ctx))).toEqual({
      statusCode: 400,
      detail: 'Monitored transaction has no pending remediation',
    });
    expect(await refusal(moveDecision(noDatabase, row('AWAITING_USER'), 'review_await_user', ctx))).toEqual({
      statusCode: 400,
      detail: 'Decision must differ from the current decision',
    });
  });

  it('contract requests: a terminal request, and fail or expire from the wrong status', async () => {
    const request = (status: RequestRow['status']) => ({ id, status }) as RequestRow;
    const ctx = { now, actor: { actorType: null, actorAccountId: null } };
    expect(await refusal(moveRequest(noDatabase, request('voided'), 'void', ctx))).toEqual({
      statusCode: 400,
      detail: "Contract request is in terminal status 'voided'",
    });
    expect(await refusal(moveRequest(noDatabase, request('sent'), 'fail', ctx))).toEqual({
      statusCode: 400,
      detail: "Contract request is 'sent'; only pending requests can fail",
    });
    expect(await refusal(moveRequest(noDatabase, request('pending'), 'expire', ctx))).toEqual({
      statusCode: 400,
      detail: "Contract request is 'pending'; only sent requests can expire",
    });
  });

  it('contract participants: what the signing page answers', async () => {
    const participant = (status: ParticipantRow['status']) => ({ id, status }) as ParticipantRow;
    expect(await refusal(moveParticipant(noDatabase, participant('waiting'), 'complete', { now }))).toEqual({
      statusCode: 400,
      detail: 'It is not your turn to sign yet',
    });
    expect(await refusal(moveParticipant(noDatabase, participant('completed'), 'decline', { now }))).toEqual({
      statusCode: 400,
      detail: 'Participant has already completed',
    });
    expect(await refusal(moveParticipant(noDatabase, participant('canceled'), 'view', { now }))).toEqual({
      statusCode: 400,
      detail: 'This signing link is no longer active',
    });
  });

  it('wallet ownership: a finished request, and a second deposit test', async () => {
    const request = (status: OwnershipRow['status']) => ({ id, status }) as OwnershipRow;
    expect(
      await refusal(
        moveOwnership(noDatabase as Tx, request('verified'), 'canceled', { now, events: noEvents }),
      ),
    ).toEqual({
      statusCode: 400,
      detail: "Wallet ownership request is in terminal status 'verified'",
    });
    expect(
      await refusal(
        moveOwnership(noDatabase as Tx, request('verifying'), 'verifying', { now, events: noEvents }),
      ),
    ).toEqual({
      statusCode: 400,
      detail: "Method 'satoshi_test' is not allowed for this request",
    });
  });
});
