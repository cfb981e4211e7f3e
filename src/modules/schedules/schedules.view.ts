/** The schedule body of the API. */

import type { InstalmentRow, ScheduleRow } from './schedules.repo';
import { sumAmounts } from './schedules-money.policy';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toInstalmentDto(i: InstalmentRow) {
  return {
    instalment_id: i.id,
    sequence: i.sequence,
    amount: i.amount,
    due_date: i.dueDate,
    issue_at: i.issueAt.toISOString(),
    status: i.status,
    transaction_id: i.transactionId,
    checkout_url: i.checkoutUrl,
    link_number: i.linkNumber,
    issue_error: i.issueError,
    paid_at: iso(i.paidAt),
  };
}

export function toScheduleDto(s: ScheduleRow, instalments: InstalmentRow[]) {
  return {
    schedule_id: s.id,
    status: s.status,
    project_id: s.projectId,
    user_id: s.userId,
    business_customer_id: s.businessCustomerId,
    currency: s.currency,
    total_amount: s.totalAmount,
    amount_paid: sumAmounts(
      instalments.filter((i) => i.status === 'paid').map((i) => i.amount),
      s.currency,
    ),
    description: s.description,
    issue_days_before: s.issueDaysBefore,
    grace_days: s.graceDays,
    delivery: s.delivery as 'email' | 'none',
    reminders: s.reminders,
    metadata: s.metadata,
    created_at: s.createdAt.toISOString(),
    canceled_at: iso(s.canceledAt),
    completed_at: iso(s.completedAt),
    instalments: instalments.map(toInstalmentDto),
  };
}

export type ScheduleDto = ReturnType<typeof toScheduleDto>;
