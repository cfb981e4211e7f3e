/** The billing and ticket configuration: defaults, checks, and what production demands. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { PRODUCTION_ENV, PRODUCTION_PAYEE_ENV } from '../helpers/app';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('billing and ticket configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      ticketAutoCloseDays: 7,
      ticketReopenWindowDays: 30,
      ticketMaxAttachmentBytes: 10485760,
      billingInvoicePrefix: 'INV',
      billingDefaultDueDays: 14,
      billingCollectionProjectId: null,
      billingPayeeName: null,
    });
  });

  it('refuses to start in production without the payee bank details', () => {
    const { SVC_BILLING_PAYEE_IBAN: _i, ...withoutIban } = PRODUCTION_ENV as Record<string, string>;
    expect(problems(withoutIban)).toMatch(/SVC_BILLING_PAYEE_IBAN is required in production/);
    const none = Object.fromEntries(
      Object.entries(PRODUCTION_ENV).filter(([k]) => !(k in PRODUCTION_PAYEE_ENV)),
    ) as Record<string, string>;
    const msg = problems(none);
    for (const v of ['SVC_BILLING_PAYEE_NAME', 'SVC_BILLING_PAYEE_IBAN', 'SVC_BILLING_PAYEE_BIC'])
      expect(msg).toContain(v);
    expect(problems({ ...PRODUCTION_ENV })).toBe('');
  });

  it('checks prefix, collection project, IBAN and BIC', () => {
    const msg = problems({
      SVC_BILLING_INVOICE_PREFIX: 'inv-x',
      SVC_BILLING_COLLECTION_PROJECT_ID: 'project-1',
      SVC_BILLING_PAYEE_IBAN: 'GB00BUKB20201555555555',
      SVC_BILLING_PAYEE_BIC: 'NOPE',
      SVC_TICKET_MAX_ATTACHMENT_BYTES: '0',
    });
    expect(msg).toMatch(/SVC_BILLING_INVOICE_PREFIX must be/);
    expect(msg).toMatch(/SVC_BILLING_COLLECTION_PROJECT_ID must be a project id/);
    expect(msg).toMatch(/SVC_BILLING_PAYEE_IBAN must be a valid IBAN/);
    expect(msg).toMatch(/SVC_BILLING_PAYEE_BIC must be a valid BIC/);
    expect(msg).toMatch(/SVC_TICKET_MAX_ATTACHMENT_BYTES must be an integer/);
    expect(loadConfig({ SVC_BILLING_PAYEE_IBAN: 'gb33 bukb 2020 1555 5555 55' }).billingPayeeIban).toBe(
      'GB33BUKB20201555555555',
    );
  });
});
