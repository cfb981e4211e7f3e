/** Both contract status machines, every row of both tables, and the signing-order rule. */
import { describe, expect, it } from 'vitest';
import {
  allSignersCompleted,
  canMoveParticipant,
  PARTICIPANT_TRANSITIONS,
  participantsToInvite,
} from '../../src/modules/contracts/participants/participants.machine';
import {
  canMoveRequest,
  isTerminalRequest,
  REQUEST_TRANSITIONS,
  requestTarget,
} from '../../src/modules/contracts/requests/requests.machine';

describe('request status table', () => {
  it('every row', () => {
    const rows: [keyof typeof REQUEST_TRANSITIONS, string[], string][] = [
      ['accept', ['pending'], 'sent'],
      ['fail', ['pending'], 'failed'],
      ['start', ['sent'], 'in_progress'],
      ['complete', ['sent', 'in_progress'], 'completed'],
      ['decline', ['sent', 'in_progress'], 'declined'],
      ['expire', ['sent', 'in_progress'], 'expired'],
      ['void', ['pending', 'sent', 'in_progress'], 'voided'],
    ];
    expect(Object.keys(REQUEST_TRANSITIONS).sort()).toEqual(rows.map((r) => r[0]).sort());
    const all = [
      'pending',
      'sent',
      'in_progress',
      'completed',
      'declined',
      'expired',
      'voided',
      'failed',
    ] as const;
    for (const [t, from, to] of rows) {
      expect(requestTarget(t)).toBe(to);
      for (const s of all) expect(canMoveRequest(t, s)).toBe(from.includes(s));
    }
    expect(all.filter(isTerminalRequest)).toEqual(['completed', 'declined', 'expired', 'voided', 'failed']);
  });
});

describe('participant status table', () => {
  it('every row', () => {
    const rows: [keyof typeof PARTICIPANT_TRANSITIONS, string[], string][] = [
      ['invite', ['waiting'], 'sent'],
      ['view', ['sent'], 'viewed'],
      ['complete', ['sent', 'viewed'], 'completed'],
      ['decline', ['sent', 'viewed'], 'declined'],
      ['bounce', ['sent'], 'bounced'],
      ['correct', ['bounced', 'sent', 'viewed'], 'sent'],
      ['cancel', ['waiting', 'sent', 'viewed', 'bounced'], 'canceled'],
    ];
    expect(Object.keys(PARTICIPANT_TRANSITIONS).sort()).toEqual(rows.map((r) => r[0]).sort());
    const all = ['waiting', 'sent', 'viewed', 'completed', 'declined', 'bounced', 'canceled'] as const;
    for (const [t, from, to] of rows) {
      expect(PARTICIPANT_TRANSITIONS[t].to).toBe(to);
      for (const s of all) expect(canMoveParticipant(t, s)).toBe(from.includes(s));
    }
  });

  it('signing order: parallel groups, later groups wait, viewers never block', () => {
    const p = (id: string, signingOrder: number, status: string, kind = 'signer') =>
      ({ id, signingOrder, status, kind }) as Parameters<typeof participantsToInvite>[0][number];
    const ids = (xs: { id: string }[]) => xs.map((x) => x.id);
    expect(
      ids(participantsToInvite([p('a', 1, 'waiting'), p('b', 1, 'waiting'), p('c', 2, 'waiting')])),
    ).toEqual(['a', 'b']);
    expect(
      ids(participantsToInvite([p('a', 1, 'completed'), p('b', 1, 'viewed'), p('c', 2, 'waiting')])),
    ).toEqual([]);
    expect(
      ids(participantsToInvite([p('a', 1, 'completed'), p('b', 1, 'completed'), p('c', 2, 'waiting')])),
    ).toEqual(['c']);
    expect(ids(participantsToInvite([p('v', 1, 'sent', 'viewer'), p('c', 2, 'waiting')]))).toEqual(['c']);
    expect(allSignersCompleted([p('a', 1, 'completed'), p('v', 2, 'sent', 'viewer')])).toBe(true);
    expect(allSignersCompleted([p('a', 1, 'completed'), p('x', 2, 'viewed', 'approver')])).toBe(false);
  });
});
