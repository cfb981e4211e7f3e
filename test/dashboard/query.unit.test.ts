/**
 * The dashboard data layer's pure parts (packages/dashboard/src/query-keys.ts): path templates filled
 * with encoded parameters, query keys that ignore empty filters, and invalidation by path prefix
 * (a template, or its first segment) that does not spill onto a sibling path.
 */
import { describe, expect, it } from 'vitest';
import { fillPath, queryKeyOf, underAny } from '../../packages/dashboard/src/query-keys';

describe('fillPath', () => {
  it('fills every parameter, URL-encoded', () => {
    expect(fillPath('/transactions/{transaction_id}', { transaction_id: 'abc' })).toBe('/transactions/abc');
    expect(
      fillPath('/payment-schedules/{schedule_id}/instalments/{instalment_id}', {
        schedule_id: 's 1',
        instalment_id: 'a/b',
      }),
    ).toBe('/payment-schedules/s%201/instalments/a%2Fb');
    expect(fillPath('/transactions', undefined)).toBe('/transactions');
  });

  it('refuses a missing or empty parameter instead of calling a wrong URL', () => {
    expect(() => fillPath('/tickets/{ticket_id}', {})).toThrow('needs ticket_id');
    expect(() => fillPath('/tickets/{ticket_id}', { ticket_id: '' })).toThrow('needs ticket_id');
  });
});

describe('queryKeyOf', () => {
  it('is the same for a query with empty filters as without them', () => {
    expect(queryKeyOf('/transactions', undefined, { status: '', page: null, q: undefined })).toEqual(
      queryKeyOf('/transactions', undefined, {}),
    );
    expect(queryKeyOf('/transactions', undefined, { status: 'failed', page: 2 })).toEqual([
      '/transactions',
      {},
      { status: 'failed', page: 2 },
    ]);
  });
});

describe('underAny', () => {
  const key = (path: string) => queryKeyOf(path, {}, {});
  it('matches the template itself and the paths below it', () => {
    expect(underAny(key('/transactions'), ['/transactions'])).toBe(true);
    expect(underAny(key('/transactions/{transaction_id}'), ['/transactions'])).toBe(true);
    expect(underAny(key('/transactions/{transaction_id}/status-events'), ['/transactions'])).toBe(true);
    expect(underAny(key('/kyc/lists'), ['/kyc'])).toBe(true);
  });

  it('leaves a sibling with the same prefix and other areas alone', () => {
    expect(underAny(key('/transactions-export'), ['/transactions'])).toBe(false);
    expect(underAny(key('/webhooks/deliveries'), ['/transactions'])).toBe(false);
    expect(underAny(['not a path'], ['/transactions'])).toBe(false);
  });
});
