/**
 * The instalment and schedule status machines: the only place that decides their statuses. Moves go
 * through the platform's `transition` with a compare-and-set on (status, version)
 * (schedules.transitions.ts).
 */
import { INSTALMENT_STATUSES, type InstalmentStatus } from '../../db/schema/payment-schedule-instalments';
import { SCHEDULE_STATUSES, type ScheduleStatus } from '../../db/schema/payment-schedules';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { ScheduleMessages } from './schedules.messages';

export { INSTALMENT_STATUSES, type InstalmentStatus, SCHEDULE_STATUSES, type ScheduleStatus };

/** The instalment table, one entry per trigger. */
export const INSTALMENT_TRANSITIONS = {
  /** issue_at reached, or POST …/issue-now: the first link. */
  issue: { from: ['scheduled'], to: 'issued' },
  /** The link's transaction succeeded (an overdue instalment whose processing payment completes is paid too). */
  pay: { from: ['issued', 'overdue'], to: 'paid' },
  /** The link failed, expired or was canceled before the grace end with links left: a new link. */
  auto_reissue: { from: ['issued'], to: 'issued' },
  /** Grace end passed unpaid, or no links left. */
  overdue: { from: ['issued'], to: 'overdue' },
  /** POST …/reissue (issued only when its transaction is terminal). */
  reissue: { from: ['overdue', 'issued'], to: 'issued' },
  cancel: { from: ['scheduled', 'issued', 'overdue'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly InstalmentStatus[]; to: InstalmentStatus }>;
export type InstalmentTrigger = keyof typeof INSTALMENT_TRANSITIONS;

/** A refused move is the 400 naming the current status. */
export const instalmentMachine = defineMachine({
  name: 'instalment',
  statuses: INSTALMENT_STATUSES,
  transitions: INSTALMENT_TRANSITIONS,
  terminal: ['paid', 'canceled'],
  refused: (_t, from) => badRequest(ScheduleMessages.instalmentActionNotAllowed(from)),
});

export const canApplyInstalment = instalmentMachine.can;
/** The target, or the 400 naming the current status. */
export const assertInstalmentTransition = instalmentMachine.assert;

/** PATCH of amount/due_date: scheduled only. */
export function assertInstalmentEditable(from: InstalmentStatus): void {
  if (from !== 'scheduled') throw badRequest(ScheduleMessages.instalmentActionNotAllowed(from));
}

export const TERMINAL_SCHEDULE_STATUSES = [
  'completed',
  'canceled',
] as const satisfies readonly ScheduleStatus[];

export const isTerminalSchedule = (s: ScheduleStatus): boolean =>
  (TERMINAL_SCHEDULE_STATUSES as readonly string[]).includes(s);

/** The schedule table. */
export const SCHEDULE_TRANSITIONS = {
  fall_behind: { from: ['active'], to: 'past_due' },
  catch_up: { from: ['past_due'], to: 'active' },
  complete: { from: ['active', 'past_due'], to: 'completed' },
  cancel: { from: ['active', 'past_due'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly ScheduleStatus[]; to: ScheduleStatus }>;
export type ScheduleTrigger = keyof typeof SCHEDULE_TRANSITIONS;

export const scheduleMachine = defineMachine({
  name: 'payment schedule',
  statuses: SCHEDULE_STATUSES,
  transitions: SCHEDULE_TRANSITIONS,
  terminal: TERMINAL_SCHEDULE_STATUSES,
  refused: (_t, from) =>
    badRequest(
      isTerminalSchedule(from)
        ? ScheduleMessages.scheduleTerminal(from)
        : ScheduleMessages.scheduleActionNotAllowed(from),
    ),
});

export function assertScheduleWritable(status: ScheduleStatus): void {
  if (isTerminalSchedule(status)) throw badRequest(ScheduleMessages.scheduleTerminal(status));
}

/**
 * What the instalments imply for the schedule (null = stay): every instalment paid or canceled with
 * one paid -> completed; all canceled, none paid -> canceled; any overdue -> past_due; else active.
 */
export function deriveScheduleTrigger(
  current: ScheduleStatus,
  instalments: readonly { status: InstalmentStatus }[],
): ScheduleTrigger | null {
  if (isTerminalSchedule(current)) return null;
  const all = (s: InstalmentStatus[]) => instalments.every((i) => s.includes(i.status));
  const paid = instalments.some((i) => i.status === 'paid');
  if (all(['paid', 'canceled'])) return paid ? 'complete' : 'cancel';
  const overdue = instalments.some((i) => i.status === 'overdue');
  if (overdue && current === 'active') return 'fall_behind';
  if (!overdue && current === 'past_due') return 'catch_up';
  return null;
}
