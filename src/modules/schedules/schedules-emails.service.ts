/**
 * Payer emails of payment schedules: the link of each issued link, and with `reminders` one the day
 * before the due date and one on it. Each `payment_schedule_emails` row is owed with a job whose run
 * time is the row's due time (a reminder is a timer), written in the transaction that issues the
 * link. The job sends outside any transaction and records the outcome on the row; a failed send is
 * retried like every email, a reminder for an instalment no longer waiting for payment is skipped,
 * and a row already sent (a re-run after a crash) is not sent again.
 */
import { eq, sql } from 'drizzle-orm';
import { rowsOf, type Tx } from '../../db/client';
import { type InstalmentStatus, paymentScheduleEmails } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { defineJob, EMAIL_RETRY, enqueueJobs, sendEmailThenMark } from '../../platform/jobs/index';

interface DueEmail {
  id: string;
  kind: 'link' | 'reminder_before' | 'reminder_due';
  link_number: number;
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

async function dueEmail(deps: Pick<Deps, 'db'>, id: string) {
  const res = await deps.db.execute(sql`
    select m.id, m.kind, m.link_number, m.state, i.status, i.link_number as current_link, i.amount::text as amount,
           i.due_date, i.sequence, i.checkout_url, s.currency, s.delivery, s.reminders, cl.company_name,
           coalesce(u.email, b.email) as payer_email,
           (select count(*)::int from payment_schedule_instalments x where x.schedule_id = s.id) as instalments
      from payment_schedule_emails m
      join payment_schedule_instalments i on i.id = m.instalment_id
      join payment_schedules s on s.id = i.schedule_id
      join clients cl on cl.id = s.client_id
      left join kyc_users u on u.id = s.user_id and u.client_id = s.client_id
      left join business_customers b on b.id = s.business_customer_id and b.client_id = s.client_id
     where m.id = ${id}::uuid`);
  return rowsOf<DueEmail & { state: string }>(res)[0] ?? null;
}

export const schedulePayerEmailJob = defineJob<{ emailId: string }>({
  kind: 'schedules.payer_email',
  ...EMAIL_RETRY,
  async run(deps, { emailId }, ctx) {
    const e = await dueEmail(deps, emailId);
    if (e?.state !== 'pending') return;
    const mark = (set: Partial<typeof paymentScheduleEmails.$inferInsert>) =>
      deps.db.update(paymentScheduleEmails).set(set).where(eq(paymentScheduleEmails.id, e.id));
    if (!shouldSend(e)) {
      await mark({ state: 'skipped' });
      return;
    }
    await sendEmailThenMark(
      deps,
      ctx,
      () => deps.mailer.send({ to: e.payer_email!, ...compose(e) }),
      (o) =>
        mark(
          o.sentAt
            ? { state: o.state, attempts: o.attempts, sentAt: o.sentAt }
            : {
                state: o.state,
                attempts: o.attempts,
                // This row keeps the outer message (as before), not the cause's.
                lastError: o.error instanceof Error ? o.error.message.slice(0, 500) : 'send failed',
              },
        ),
    );
  },
});

/** Writes the rows (a row already owed is kept) and owes each new one at its due time. */
export async function queueScheduleEmails(
  tx: Tx,
  now: Date,
  rows: (typeof paymentScheduleEmails.$inferInsert)[],
) {
  const added = await tx.insert(paymentScheduleEmails).values(rows).onConflictDoNothing().returning({
    id: paymentScheduleEmails.id,
    dueAt: paymentScheduleEmails.dueAt,
    clientId: paymentScheduleEmails.clientId,
  });
  await enqueueJobs(
    tx,
    { now: () => now },
    schedulePayerEmailJob,
    added.map((r) => ({ payload: { emailId: r.id }, runAt: r.dueAt, clientId: r.clientId })),
  );
}
