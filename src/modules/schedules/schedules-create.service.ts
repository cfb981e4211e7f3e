/**
 * POST /payment-schedules ((idem, required)): exactly one of `instalments` or `plan` (split exactly,
 * remainder on the first), paylink's input checks for the payer, currency and every amount, paylink's
 * business rules for the client, project and payer, then the schedule and its instalments with their
 * events and activity entry in one transaction. The worker issues each link at its `issue_at`.
 */
import { paymentScheduleInstalments, paymentSchedules } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addDays, addMonths, isIsoDate, isoDate } from '../../platform/calendar';
import { compare } from '../../platform/decimal';
import { runIdempotent } from '../../platform/idempotency';
import type { ClientAuth } from '../../plugins/auth';
import { notFound, ValidationError, type ValidationIssue } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { M } from '../../shared/messages';
import { maxPaymentAmount, type PaymentLimits } from '../../shared/payment-money';
import { recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import { assertPaylinkAllowed, loadPaylinkFacts, validatePaylinkInput } from '../payments/paylink.service';
import { ScheduleMessages } from './schedules.messages';
import { emitInstalmentEvent, emitScheduleEvent, syncInstalmentTimers } from './schedules.transitions';
import { type ScheduleDto, toScheduleDto } from './schedules.view';
import { graceEndOf, issueAtOf, splitPlan, sumAmounts } from './schedules-money.policy';

export interface CreateScheduleBody {
  project_id: string;
  user_id?: string;
  business_customer_id?: string;
  currency: string;
  description?: string;
  instalments?: { amount: string; due_date: string }[];
  plan?: { total_amount: string; count: number; interval: 'week' | 'month'; start_date: string };
  issue_days_before?: number;
  grace_days?: number;
  delivery?: 'email' | 'none';
  reminders?: boolean;
  metadata?: Record<string, string>;
}

/**
 * paylink's own input checks on (payer, currency, amount), with the loc moved to `amountLoc`.
 * `maximum` false checks a plan's total, whose instalments are checked against the maximum instead.
 */
export function checkAmount(
  limits: PaymentLimits,
  body: Pick<CreateScheduleBody, 'project_id' | 'user_id' | 'business_customer_id' | 'currency'>,
  amount: string,
  amountLoc: (string | number)[],
  maximum = true,
): { amount: string | null; issues: ValidationIssue[] } {
  try {
    const v = validatePaylinkInput({ ...body, amount, expires_in_seconds: 86400 }, limits, maximum);
    return { amount: v.amount, issues: [] };
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return {
      amount: null,
      issues: err.issues.map((i) => (i.loc[1] === 'amount' ? { ...i, loc: amountLoc } : i)),
    };
  }
}

function dateIssue(loc: (string | number)[], msg: string): ValidationIssue {
  return { loc, msg, type: 'value_error' };
}

/** The instalments to create (amounts normalized), or the 422 issues. */
export function planInstalments(
  limits: PaymentLimits,
  body: CreateScheduleBody,
  today: string,
): { amount: string; due_date: string }[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const push = (list: ValidationIssue[]) => {
    for (const i of list) {
      const key = `${JSON.stringify(i.loc)}|${i.msg}`;
      if (!seen.has(key)) issues.push(i);
      seen.add(key);
    }
  };
  if ((body.instalments === undefined) === (body.plan === undefined))
    throw new ValidationError([dateIssue(['body'], ScheduleMessages.instalmentsOrPlan)]);
  let out: { amount: string; due_date: string }[] = [];
  if (body.instalments) {
    body.instalments.forEach((inst, idx) => {
      const r = checkAmount(limits, body, inst.amount, ['body', 'instalments', idx, 'amount']);
      push(r.issues);
      const loc = ['body', 'instalments', idx, 'due_date'];
      if (!isIsoDate(inst.due_date)) push([dateIssue(loc, 'Input should be a valid date')]);
      else if (idx === 0 && inst.due_date < today) push([dateIssue(loc, ScheduleMessages.dueDateInPast)]);
      else if (idx > 0 && inst.due_date <= body.instalments![idx - 1]!.due_date)
        push([dateIssue(loc, ScheduleMessages.dueDatesIncreasing)]);
      out.push({ amount: r.amount ?? inst.amount, due_date: inst.due_date });
    });
  } else {
    const plan = body.plan!;
    const r = checkAmount(limits, body, plan.total_amount, ['body', 'plan', 'total_amount'], false);
    push(r.issues);
    const loc = ['body', 'plan', 'start_date'];
    if (!isIsoDate(plan.start_date)) push([dateIssue(loc, 'Input should be a valid date')]);
    else if (plan.start_date < today) push([dateIssue(loc, ScheduleMessages.dueDateInPast)]);
    if (r.amount && issues.length === 0) {
      const amounts = splitPlan(r.amount, plan.count, body.currency);
      const max = maxPaymentAmount(limits, body.currency);
      if (!amounts)
        push([dateIssue(['body', 'plan', 'total_amount'], ScheduleMessages.planTooSmall(plan.count))]);
      else if (amounts.some((a) => compare(a, max) > 0))
        push([
          dateIssue(
            ['body', 'plan', 'total_amount'],
            ScheduleMessages.instalmentAboveMax(max, body.currency),
          ),
        ]);
      else
        out = amounts.map((amount, k) => ({
          amount,
          due_date:
            plan.interval === 'week' ? addDays(plan.start_date, 7 * k) : addMonths(plan.start_date, k),
        }));
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
}

export async function createSchedule(
  deps: Deps,
  auth: ClientAuth,
  header: string | string[] | undefined,
  body: CreateScheduleBody,
) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'payment_schedules');
  return runIdempotent(
    deps,
    { clientId: auth.clientId, scope: 'payment_schedules.create', header, required: true, payload: body },
    async (commit) => {
      const now = deps.clock.now();
      const planned = planInstalments(deps.config, body, isoDate(now));
      const facts = (await loadPaylinkFacts(deps.db, auth.clientId, [body]))?.[0];
      if (!facts) throw notFound(M.notFound);
      assertPaylinkAllowed(facts);
      const issueDaysBefore = body.issue_days_before ?? deps.config.scheduleIssueDaysBefore;
      const graceDays = body.grace_days ?? deps.config.scheduleGraceDays;
      const id = newId();
      const dto: ScheduleDto = await deps.db.transaction(async (tx) => {
        const [s] = await tx
          .insert(paymentSchedules)
          .values({
            id,
            clientId: auth.clientId,
            status: 'active',
            projectId: body.project_id,
            userId: body.user_id ?? null,
            businessCustomerId: body.business_customer_id ?? null,
            currency: body.currency,
            totalAmount: sumAmounts(
              planned.map((p) => p.amount),
              body.currency,
            ),
            description: body.description ?? null,
            issueDaysBefore,
            graceDays,
            delivery: body.delivery ?? 'email',
            reminders: body.reminders ?? true,
            maxLinks: deps.config.scheduleMaxLinksPerInstalment,
            metadata: body.metadata ?? {},
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        const instalments = await tx
          .insert(paymentScheduleInstalments)
          .values(
            planned.map((p, k) => {
              const issueAt = issueAtOf(p.due_date, issueDaysBefore, now);
              return {
                scheduleId: id,
                clientId: auth.clientId,
                sequence: k + 1,
                amount: p.amount,
                dueDate: p.due_date,
                issueAt,
                issueDueAt: issueAt,
                graceEndAt: graceEndOf(p.due_date, graceDays),
                status: 'scheduled' as const,
                updatedAt: now,
              };
            }),
          )
          .returning();
        await syncInstalmentTimers(tx, now, instalments);
        await emitScheduleEvent(tx, s!, null, sumAmounts([], body.currency), now);
        for (const i of instalments) await emitInstalmentEvent(tx, s!, i, null, now);
        await recordActivity(tx, {
          clientId: auth.clientId,
          action: 'payment_schedule.created',
          at: now,
          target: { type: 'payment_schedule', id, label: `${s!.totalAmount} ${s!.currency}` },
          metadata: { instalments: instalments.length, project_id: body.project_id },
        });
        const out = toScheduleDto(s!, instalments);
        await commit(tx, out, 201);
        return out;
      });
      return { body: dto, status: 201 };
    },
  );
}
