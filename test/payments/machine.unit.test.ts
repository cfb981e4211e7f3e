/** The status machine, the mapping table and the callback URL rules, as pure functions. */
import { describe, expect, it } from 'vitest';
import { buildCallbackRedirect } from '../../src/modules/payments/callback-url.policy';
import {
  canTransition,
  decideInternalMove,
  decideProviderStatus,
  isTerminal,
  LATE_SUCCESS_REASON,
  MAY_HAVE_MOVED_REASON,
  PROVIDER_STATUS_MAP,
  PROVIDER_STATUSES,
  SETTLEMENT_INCOMPLETE_REASON,
  TRANSACTION_STATUSES,
  TRANSITIONS,
  type TransactionStatus,
} from '../../src/modules/payments/payments.machine';
import { canonicalJson, requestFingerprint } from '../../src/shared/fingerprint';

/** The transaction status table (docs/guides/payments.md), transcribed independently of the implementation. */
const SPEC_TRANSITIONS: [TransactionStatus, TransactionStatus][] = [
  ['pending', 'processing'],
  ['pending', 'expired'],
  ['pending', 'canceled'],
  ['pending', 'failed'],
  ['processing', 'success'],
  ['processing', 'failed'],
  ['processing', 'expired'],
  ['processing', 'canceled'],
];

/** The detail status (provider_status) to status mapping, transcribed independently. */
const SPEC_MAPPING: [string, TransactionStatus | null][] = [
  ['completed', 'success'],
  ['settled', 'success'],
  ['initiated', 'processing'],
  ['awaiting_bank_authorization', 'processing'],
  ['awaiting_redemption', 'processing'],
  ['processing', 'processing'],
  ['settling', 'processing'],
  ['rejected', 'failed'],
  ['rejected_insufficient_funds', 'failed'],
  ['failed', 'failed'],
  // Failed, as the spec says; held for manual review as well (Token.io reports it after
  // INITIATION_COMPLETED, so the money most likely left the payer; tested below).
  ['settlement_incomplete', 'failed'],
  ['expired', 'expired'],
  ['no_final_status', 'expired'],
  ['declined', 'canceled'],
  ['canceled', 'canceled'],
  ['authorized', null],
  ['transfer_created', null],
  ['transfer_updated', null],
  ['refunded', null],
];

describe('transition table', () => {
  it('has exactly the rows of the spec', () => {
    expect(TRANSITIONS.map((t) => [t.from, t.to])).toEqual(SPEC_TRANSITIONS);
  });

  for (const from of TRANSACTION_STATUSES) {
    for (const to of TRANSACTION_STATUSES) {
      const allowed = SPEC_TRANSITIONS.some(([f, t]) => f === from && t === to);
      it(`${from} -> ${to} is ${allowed ? 'allowed' : 'blocked'}`, () => {
        expect(canTransition(from, to)).toBe(allowed);
        expect(decideInternalMove(from, to).ok).toBe(allowed);
      });
    }
  }

  it('terminal statuses are success, failed, expired, canceled and never move', () => {
    expect(TRANSACTION_STATUSES.filter(isTerminal)).toEqual(['success', 'failed', 'expired', 'canceled']);
    for (const s of TRANSACTION_STATUSES.filter(isTerminal))
      for (const to of TRANSACTION_STATUSES) expect(canTransition(s, to)).toBe(false);
  });
});

describe('provider_status mapping table', () => {
  it('has exactly the rows of the spec', () => {
    expect(Object.entries(PROVIDER_STATUS_MAP)).toEqual(SPEC_MAPPING);
  });

  for (const [code, coarse] of SPEC_MAPPING) {
    for (const current of TRANSACTION_STATUSES) {
      it(`${current} + ${code}`, () => {
        const d = decideProviderStatus(current, code);
        if (coarse === null) {
          expect(d).toMatchObject({ kind: 'detail', providerStatus: code, emitEvent: false });
        } else if (isTerminal(current)) {
          expect(d.kind).toBe(coarse === current ? 'detail' : 'ignored');
          expect(d.emitEvent).toBe(false);
        } else if (coarse === current) {
          expect(d).toMatchObject({ kind: 'detail', emitEvent: false });
        } else if (canTransition(current, coarse)) {
          expect(d).toMatchObject({
            kind: 'transition',
            to: coarse,
            providerStatus: code,
            // "No final status" and an incomplete settlement: money may have moved, so the payment is
            // also held for review.
            reconciliation:
              code === 'no_final_status' || code === 'settlement_incomplete'
                ? 'manual_review_required'
                : 'none',
            emitEvent: true,
          });
        } else {
          // e.g. pending + completed: a confirmation before authentication began is held for review
          expect(d).toMatchObject({
            kind: 'manual_review',
            reconciliation: 'manual_review_required',
            emitEvent: true,
          });
        }
      });
    }
  }

  it('settlement_incomplete fails the payment as the spec maps it, held for review with its own reason', () => {
    for (const current of ['pending', 'processing'] as const)
      expect(decideProviderStatus(current, 'SETTLEMENT_INCOMPLETE')).toMatchObject({
        kind: 'transition',
        to: 'failed',
        reconciliation: 'manual_review_required',
        reason: SETTLEMENT_INCOMPLETE_REASON,
        emitEvent: true,
      });
    // After success (Token.io's order): the money moved; the late code is not a failure.
    expect(decideProviderStatus('success', 'settlement_incomplete').kind).toBe('ignored');
  });

  it('money may have moved: no final status, or expired after processing, is expired and held for review', () => {
    for (const current of ['pending', 'processing'] as const)
      expect(decideProviderStatus(current, 'no_final_status')).toMatchObject({
        kind: 'transition',
        to: 'expired',
        reconciliation: 'manual_review_required',
        reason: MAY_HAVE_MOVED_REASON,
      });
    const known = (providerStatus: string | null, reconciliationState = 'none') => ({
      providerStatus,
      reconciliationState,
    });
    expect(decideProviderStatus('processing', 'expired', known('processing'))).toMatchObject({
      kind: 'transition',
      to: 'expired',
      reconciliation: 'manual_review_required',
    });
    expect(decideProviderStatus('processing', 'expired', known('awaiting_bank_authorization'))).toMatchObject(
      { kind: 'transition', to: 'expired', reconciliation: 'none' },
    );
  });

  it('a payment held for review after it ended: a late completion is raised once, other news recorded', () => {
    const held = { providerStatus: 'no_final_status', reconciliationState: 'manual_review_required' };
    for (const code of ['completed', 'settled'])
      expect(decideProviderStatus('expired', code, held)).toMatchObject({
        kind: 'manual_review',
        providerStatus: code,
        reconciliation: 'manual_review_required',
        reason: LATE_SUCCESS_REASON,
        emitEvent: true,
      });
    const raised = { providerStatus: 'completed', reconciliationState: 'manual_review_required' };
    expect(decideProviderStatus('expired', 'settled', raised)).toMatchObject({
      kind: 'detail',
      emitEvent: false,
    });
    expect(decideProviderStatus('expired', 'rejected', held)).toMatchObject({
      kind: 'detail',
      providerStatus: 'rejected',
      emitEvent: false,
    });
    // Not held: a terminal payment ignores a contradicting code as before.
    expect(decideProviderStatus('expired', 'completed')).toMatchObject({ kind: 'ignored' });
  });

  it('unrecognized upstream codes collapse to unknown and never move the status', () => {
    for (const current of TRANSACTION_STATUSES) {
      for (const raw of ['BANK_XYZ_42', 'weird', '', 'COMPLETED_BUT_NOT_REALLY']) {
        const d = decideProviderStatus(current, raw);
        expect(d.kind).toBe('detail');
        expect(d.providerStatus).toBe('unknown');
        expect(d.emitEvent).toBe(false);
      }
    }
  });

  it('codes are matched case-insensitively but stored normalized', () => {
    expect(decideProviderStatus('processing', 'COMPLETED')).toMatchObject({
      kind: 'transition',
      providerStatus: 'completed',
    });
  });

  it('manual review keeps the status and emits', () => {
    expect(decideProviderStatus('pending', 'manual_review')).toMatchObject({
      kind: 'manual_review',
      reconciliation: 'manual_review_required',
      emitEvent: true,
    });
    expect(decideProviderStatus('success', 'manual_review')).toMatchObject({
      kind: 'ignored',
      emitEvent: false,
    });
  });

  it('lists every code once', () => {
    expect(new Set(PROVIDER_STATUSES).size).toBe(SPEC_MAPPING.length);
  });
});

describe('callback URL', () => {
  const id = '01a2013e-66c0-776b-a737-52aecb11184a';
  const cases: [string, string][] = [
    ['https://shop.example.com/return', `https://shop.example.com/return?transaction_id=${id}`],
    [
      'https://shop.example.com/return?order=42',
      `https://shop.example.com/return?order=42&transaction_id=${id}`,
    ],
    [
      'https://shop.example.com/return?order=42&lang=en',
      `https://shop.example.com/return?order=42&lang=en&transaction_id=${id}`,
    ],
    ['https://shop.example.com/return?', `https://shop.example.com/return?transaction_id=${id}`],
    ['https://shop.example.com/r?transaction_id=abc', 'https://shop.example.com/r?transaction_id=abc'],
    [
      'https://shop.example.com/r?a=1&transaction_id=&b=2',
      'https://shop.example.com/r?a=1&transaction_id=&b=2',
    ],
    [
      'https://shop.example.com/r?q=a%20b#frag',
      `https://shop.example.com/r?q=a%20b&transaction_id=${id}#frag`,
    ],
    ['https://shop.example.com', `https://shop.example.com/?transaction_id=${id}`],
  ];
  for (const [input, expected] of cases) {
    it(`${input}`, () => expect(buildCallbackRedirect(input, id)).toBe(expected));
  }
});

describe('idempotency fingerprint', () => {
  it('ignores key order, not values', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: 'x' } })).toBe('{"a":{"c":"x","d":[1,2]},"b":1}');
    expect(requestFingerprint({ a: 1, b: 2 })).toBe(requestFingerprint({ b: 2, a: 1 }));
    expect(requestFingerprint({ a: '1.0' })).not.toBe(requestFingerprint({ a: '1.00' }));
  });
});
