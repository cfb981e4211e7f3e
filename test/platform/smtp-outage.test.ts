/**
 * An SMTP outage loses no email: a contract invitation, a wallet-ownership proof request, an invoice,
 * a staff ticket reply and a payment-schedule reminder all meet a mail server that refuses every
 * connection; each is a job that fails, stays visible with its error, and is delivered once the
 * server is back (the real SMTP path, the jobs runner and the manual clock).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoices } from '../../src/db/schema/index';
import { createDraft, finalize } from '../billing/fixtures';
import { createTemplate, participants, send } from '../contracts/fixtures';
import { createTestApp, type TestContext } from '../helpers/app';
import { runJobs } from '../helpers/jobs';
import { type SmtpCapture, startSmtpCapture } from '../helpers/smtp';
import { staffHeaders } from '../org/fixtures';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import { createSchedule, drainSchedules } from '../schedules/fixtures';
import { evm } from '../screening/fixtures';
import { openTicket, renewStaff, api as ticketsApi } from '../tickets/fixtures';

let smtp: SmtpCapture;
let ctx: TestContext;
let w: PaymentWorld;
let staffLogin: Awaited<ReturnType<typeof staffHeaders>>;
let staff: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  ctx = await createTestApp({
    mailer: smtp.mailer,
    env: {
      SVC_BILLING_PAYEE_NAME: 'Platform Ltd',
      SVC_BILLING_PAYEE_IBAN: 'GB33BUKB20201555555555',
      SVC_BILLING_PAYEE_BIC: 'BUKBGB22',
    },
  });
  w = await createPaymentWorld(ctx);
  staffLogin = await staffHeaders(ctx);
  staff = staffLogin.headers;
});
afterAll(async () => {
  await ctx?.close();
  await smtp?.close();
});

const subjects = () => smtp.messages.map((m) => m.subject);

describe('an SMTP outage', () => {
  it('loses nothing: every email owed during it arrives once the server is back', async () => {
    const template = await createTemplate(ctx, w.caller);
    smtp.setDown(true);

    // Five features owe emails while the mail server is down.
    const contract = await send(ctx, w.caller, {
      template_id: template.template_id,
      title: 'Outage agreement',
      participants: participants('outage'),
    });
    expect(contract.status).toBe('sent');
    const proof = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/screening/wallet-ownership/requests',
      headers: w.caller.headers,
      payload: { user_id: w.userId, chain: 'ethereum', address: evm('0a7'), delivery: 'email' },
    });
    expect(proof.statusCode).toBe(201);
    const invoice = await finalize(ctx, staff, (await createDraft(ctx, staff, w.caller.clientId)).invoice_id);
    const ticket = await openTicket(ctx, w.caller);
    const reply = await ticketsApi(ctx)('POST', `/admin/tickets/${ticket.ticket_id}/messages`, staff, {
      body: 'We found the payout.',
    });
    expect(reply.statusCode).toBe(201);
    await createSchedule(ctx, w, { instalments: [{ amount: '20.00', due_date: '2026-01-17' }] });
    await drainSchedules(ctx); // the link email fails
    await runJobs(ctx);
    // The reminder the day before the due date (09:00 UTC) meets the outage too.
    ctx.clock.advance(new Date('2026-01-16T09:00:00Z').getTime() - ctx.clock.now().getTime());
    await drainSchedules(ctx);
    await runJobs(ctx);
    expect(smtp.messages).toHaveLength(0);
    // Staff see the invoice email failing, not lost.
    await renewStaff(ctx, staffLogin);
    const failing = (
      await ticketsApi(ctx)('GET', `/admin/billing/invoices/${invoice.invoice_id}`, staff)
    ).json();
    expect(failing.email).toMatchObject({ state: 'pending', attempts: 2 });
    expect(failing.email.last_error).toBeTruthy();

    // The server is back: the next attempts deliver everything, once.
    smtp.setDown(false);
    ctx.clock.advanceSeconds(15 * 60);
    await runJobs(ctx);
    expect((await smtp.waitFor('cleooutage@example.com', /review "Outage agreement"/)).text).toContain(
      '/sign/',
    );
    expect(subjects()).toEqual(
      expect.arrayContaining([
        'Please confirm you control your wallet',
        `Invoice ${invoice.number}: EUR ${failing.total} due ${failing.due_date}`,
        `[Ticket #${ticket.number}] Re: Payouts are late`,
        expect.stringMatching(/^Payment request from .*: 20\.00 EUR due 2026-01-17$/),
        expect.stringMatching(/^Reminder: 20\.00 EUR to .* is due tomorrow/),
      ]),
    );
    expect(smtp.messages).toHaveLength(6);
    const sent = smtp.messages.length;
    ctx.clock.advanceSeconds(24 * 3600 - 9 * 3600 + 60); // past every backoff, before the due-day reminder
    await runJobs(ctx);
    expect(smtp.messages).toHaveLength(sent);
    const [row] = await ctx.db.select().from(invoices).where(eq(invoices.id, invoice.invoice_id));
    expect(row).toMatchObject({ emailState: 'sent', emailAttempts: 3 });
  });
});
