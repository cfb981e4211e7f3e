/** `svc admin invoice create|finalize|mark-paid|void` in-process over the test database. */
import { beforeAll, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from '../helpers/cli';
import { clientApp } from '../helpers/suites';
import { eventsOf, staffHeaders } from '../org/fixtures';
import { LINES, putPrices } from './fixtures';

const s = clientApp({ app: { env: { SVC_BILLING_INVOICE_PREFIX: 'CLI' } } });
let cli: CliHarness;
beforeAll(() => {
  cli = cliHarness(s.ctx);
});

async function svc(...words: string[]): Promise<Record<string, unknown>> {
  return JSON.parse((await cli.run(...words)).join('\n'));
}

describe('svc admin invoice', () => {
  it('creates from lines, finalizes, marks paid, voids', async () => {
    const draft = await svc(
      'admin',
      'invoice',
      'create',
      s.owner.clientId,
      '--currency',
      'EUR',
      '--lines',
      JSON.stringify(LINES),
      '--tax-rate',
      '19',
      '--period-start',
      '2026-01-01',
      '--period-end',
      '2026-01-31',
      '--po',
      'PO-CLI',
    );
    expect(draft).toMatchObject({ status: 'draft', total: '72.98', purchase_order_number: 'PO-CLI' });
    const open = await svc('admin', 'invoice', 'finalize', draft.invoice_id as string);
    expect(open).toMatchObject({ status: 'open', number: 'CLI-2026-000001' });
    const paid = await svc(
      'admin',
      'invoice',
      'mark-paid',
      draft.invoice_id as string,
      '--reference',
      'wire 42',
    );
    expect(paid).toMatchObject({ status: 'paid', payment_reference: 'wire 42' });
    await expect(
      svc('admin', 'invoice', 'void', draft.invoice_id as string, '--reason', 'late'),
    ).rejects.toThrow("Invoice in status 'paid' does not allow this action");
    const second = await svc(
      'admin',
      'invoice',
      'create',
      s.owner.clientId,
      '--currency',
      'EUR',
      '--lines',
      JSON.stringify(LINES),
    );
    await svc('admin', 'invoice', 'finalize', second.invoice_id as string);
    const voided = await svc(
      'admin',
      'invoice',
      'void',
      second.invoice_id as string,
      '--reason',
      'Wrong period',
    );
    expect(voided).toMatchObject({ status: 'void', void_reason: 'Wrong period' });
    // The previous calendar month is the default period.
    expect(second).toMatchObject({ period_start: '2025-12-01', period_end: '2025-12-31' });
    const statuses = (await eventsOf(s.ctx, s.owner.clientId, 'billing.invoice.status_changed')).map(
      (e) => (e.data as { current_status: string }).current_status,
    );
    expect(statuses).toEqual(['open', 'paid', 'open', 'void']);
  });

  it('creates from usage and checks its arguments', async () => {
    await putPrices(s.ctx, (await staffHeaders(s.ctx)).headers, s.owner.clientId);
    const draft = await svc(
      'admin',
      'invoice',
      'create',
      s.owner.clientId,
      '--currency',
      'EUR',
      '--from-usage',
      '--due-in-days',
      '30',
    );
    expect(draft).toMatchObject({ status: 'draft', due_in_days: 30, subtotal: '49.00' });
    await expect(
      svc('admin', 'invoice', 'create', 'nope', '--currency', 'EUR', '--from-usage'),
    ).rejects.toThrow(/UUID/);
    await expect(svc('admin', 'invoice', 'create', s.owner.clientId, '--currency', 'EUR')).rejects.toThrow(
      /either/,
    );
    await expect(
      svc(
        'admin',
        'invoice',
        'create',
        s.owner.clientId,
        '--currency',
        'EUR',
        '--lines',
        '[{"description":"x"}]',
      ),
    ).rejects.toThrow(/--lines/);
    await expect(svc('admin', 'invoice', 'void', draft.invoice_id as string)).rejects.toThrow(/--reason/);
    await expect(svc('admin', 'invoice', 'finalize', '00000000-0000-4000-8000-000000000000')).rejects.toThrow(
      'Invoice not found',
    );
  });
});
