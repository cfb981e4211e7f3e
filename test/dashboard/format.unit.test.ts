/**
 * The dashboard's display helpers (packages/dashboard/src/ui/format.ts) in Node 20's ICU: amounts are
 * formatted from their decimal strings with every digit, and two payments created in the same
 * minute get different labels (a UUIDv7 starts with its creation time). The Chromium side of the
 * amount formatting is checked in test/browser/dashboard-sandbox.test.ts.
 */
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { formatMoney, paymentLabel, shortId } from '../../packages/dashboard/src/ui/format';

describe('formatMoney', () => {
  it('keeps every digit of the decimal string', () => {
    expect(formatMoney('999999999999999.99', 'EUR')).toBe('€999,999,999,999,999.99');
    expect(formatMoney('12345678901234567.89', 'GBP')).toBe('£12,345,678,901,234,567.89');
    expect(formatMoney('0.10', 'EUR')).toBe('€0.10');
    expect(formatMoney('1000', 'JPY')).toBe('JP¥1,000');
    expect(formatMoney('1.234', 'BHD')).toBe('BHD\u00a01.234');
    // More digits than the currency's minor units are shown, not rounded away.
    expect(formatMoney('10.505', 'EUR')).toBe('€10.505');
    expect(formatMoney('10.5', 'EUR')).toBe('€10.50');
  });

  it('falls back to the raw string and code for what it cannot format', () => {
    expect(formatMoney('12,50', 'EUR')).toBe('12,50 EUR');
    expect(formatMoney('10.00', 'ZZZ1')).toBe('10.00 ZZZ1');
  });
});

describe('paymentLabel', () => {
  it('tells apart two payments of the same minute', () => {
    // The first 8 hex digits are the top 32 bits of the millisecond time: they change every 65.5 s.
    const msecs = Math.floor(Date.parse('2026-11-27T10:00:00Z') / 65_536) * 65_536;
    const a = uuidv7({ msecs, seq: 1 });
    const b = uuidv7({ msecs: msecs + 30_000, seq: 2 });
    expect(a.slice(0, 8)).toBe(b.slice(0, 8)); // what the list used to show
    expect(paymentLabel({ transaction_id: a })).not.toBe(paymentLabel({ transaction_id: b }));
    expect(paymentLabel({ transaction_id: a })).toBe(`Payment ${shortId(a)}`);
    expect(shortId(a)).toBe(`…${a.slice(-8)}`);
  });

  it('prefers the description', () => {
    expect(paymentLabel({ transaction_id: uuidv7(), description: 'Order 42' })).toBe('Order 42');
    expect(paymentLabel({ transaction_id: 'x', description: '  ' })).toBe('Payment …x');
  });
});
