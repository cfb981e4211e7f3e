/** The invoice status machine, table row by table row. */
import { describe, expect, it } from 'vitest';
import {
  assertCanApply,
  canApply,
  canReissue,
  INVOICE_STATUSES,
  INVOICE_TRANSITIONS,
  type InvoiceStatus,
  type InvoiceTransition,
  isTerminal,
} from '../../src/modules/billing/billing.machine';

describe('invoice machine', () => {
  it('allows exactly the rows of the table; paid and void are terminal', () => {
    const rows: [InvoiceTransition, InvoiceStatus[], InvoiceStatus][] = [
      ['finalize', ['draft'], 'open'],
      ['mark_overdue', ['open'], 'overdue'],
      ['payment_success', ['open', 'overdue', 'uncollectible'], 'paid'],
      ['mark_paid', ['open', 'overdue', 'uncollectible'], 'paid'],
      ['mark_uncollectible', ['open', 'overdue'], 'uncollectible'],
      ['void', ['open', 'overdue', 'uncollectible'], 'void'],
    ];
    expect(Object.keys(INVOICE_TRANSITIONS).sort()).toEqual(rows.map((r) => r[0]).sort());
    for (const [t, from, to] of rows) {
      expect(INVOICE_TRANSITIONS[t].to).toBe(to);
      for (const s of INVOICE_STATUSES) expect(canApply(t, s), `${t} from ${s}`).toBe(from.includes(s));
    }
    expect(INVOICE_STATUSES.filter(isTerminal)).toEqual(['paid', 'void']);
    expect(INVOICE_STATUSES.filter(canReissue)).toEqual(['void']);
    expect(() => assertCanApply('void', 'paid')).toThrow(
      "Invoice in status 'paid' does not allow this action",
    );
  });
});
