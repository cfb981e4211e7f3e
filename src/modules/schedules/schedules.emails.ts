/**
 * Payer emails of payment schedules: the link of each issued link, and with `reminders` one the day
 * before the due date and one on it. Rows are claimed with FOR UPDATE SKIP LOCKED and sent outside
 * any transaction; a failed send is retried (5 attempts), a reminder for an instalment that is no
 * longer waiting for payment is skipped.
 */
import { eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { type InstalmentStatus, paymentScheduleEmails } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';

const MAX_ATTEMPTS = 5;

interface DueEmail {
  id: string;
  kind: 'link' | 'reminder_before' | 'reminder_due';
  link_number: number;
  attempts: number;
  status: InstalmentStatus;
  current_link: number;
  amount: string;
  due_date: string;
  sequence: number;
  checkout_url: string | null;
  currency: string;
  delivery: string;
  reminders: boolean;
  company_name: string;
  payer_email: string | null;
  instalments: number;
}

function compose(e: DueEmail): { subject: string; text: string } {
  const what = `${e.amount} ${e.currency}`;
  const subject =
    e.kind === 'link'
      ? `Payment request from ${e.company_name}: ${what} due ${e.due_date}`
      : e.kind === 'reminder_before'
        ? `Reminder: ${what} to ${e.company_name} is due tomorrow (${e.due_date})`
        : `Reminder: ${what} to ${e.company_name} is due today (${e.due_date})`;
  const lead =
    e.kind === 'reminder_before'
      ? 'A reminder: this payment is due tomorrow.\n\n'
      : e.kind === 'reminder_due'
        ? 'A reminder: this payment is due today.\n\n'
        : '';
  const text =
    `Hello,\n\n${lead}${e.company_name} asks you to pay ${what}, instalment ${e.sequence} of ${e.instalments}, ` +
    `due ${e.due_date}.\n\nPay by bank here: ${e.checkout_url}\n\nIf you have already paid, please ignore this message.\n`;
  return { subject, text };
}

function shouldSend(e: DueEmail): boolean {
  if (e.delivery !== 'email' || !e.payer_email || !e.checkout_url || e.status !== 'issued') return false;
  if (e.kind === 'link') return e.link_number === e.current_link;
  return e.reminders;
}

export async function sendDueScheduleEmails(deps: Deps, limit = 20): Promise<number> {
  const now = deps.clock.now();
  const res = await deps.db.execute(sql`
    with c as (
      update payment_schedule_emails m
         set due_at = ${addSeconds(now, 120).toISOString()}::timestamptz, attempts = m.attempts + 1
        from (select id from payment_schedule_emails
               where state = 'pending' and due_at <= ${now.toISOString()}::timestamptz
               order by due_at limit ${limit}
               for update skip locked) d
       where m.id = d.id
      returning m.id, m.kind, m.link_number, m.attempts, m.instalment_id)
    select c.id, c.kind, c.link_number, c.attempts, i.status, i.link_number as current_link, i.amount::text as amount,
           i.due_date, i.sequence, i.checkout_url, s.currency, s.delivery, s.reminders, cl.company_name,
           coalesce(u.email, b.email) as payer_email,
           (select count(*)::int from payment_schedule_instalments x where x.schedule_id = s.id) as instalments
      from c
      join payment_schedule_instalments i on i.id = c.instalment_id
      join payment_schedules s on s.id = i.schedule_id
      join clients cl on cl.id = s.client_id
      left join kyc_users u on u.id = s.user_id and u.client_id = s.client_id
      left join business_customers b on b.id = s.business_customer_id and b.client_id = s.client_id`);
  const due = rowsOf<DueEmail>(res);
  for (const e of due) {
    if (!shouldSend(e)) {
      await deps.db
        .update(paymentScheduleEmails)
        .set({ state: 'skipped' })
        .where(eq(paymentScheduleEmails.id, e.id));
      continue;
    }
    try {
      await deps.mailer.send({ to: e.payer_email!, ...compose(e) });
      await deps.db
        .update(paymentScheduleEmails)
        .set({ state: 'sent', sentAt: deps.clock.now() })
        .where(eq(paymentScheduleEmails.id, e.id));
    } catch (err) {
      deps.log.warn({ err, emailId: e.id }, 'payment schedule email failed');
      const last = e.attempts >= MAX_ATTEMPTS;
      await deps.db
        .update(paymentScheduleEmails)
        .set({
          state: last ? 'failed' : 'pending',
          dueAt: addSeconds(deps.clock.now(), 60 * e.attempts),
          lastError: err instanceof Error ? err.message.slice(0, 500) : 'send failed',
        })
        .where(eq(paymentScheduleEmails.id, e.id));
    }
  }
  return due.length;
}
