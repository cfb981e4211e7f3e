/**
 * `allowed_actions` of a payment schedule and of its instalments, from their machines
 * (docs/platform.md, "allowed_actions").
 */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import {
  type InstalmentStatus,
  instalmentMachine,
  isTerminalSchedule,
  type ScheduleStatus,
  scheduleMachine,
} from './schedules.machine';
import type { ScheduleDto } from './schedules.view';

export const scheduleActions = defineActions(scheduleMachine, (s: { status: ScheduleStatus }) => s.status, {
  edit: { permission: 'schedules.write', statuses: (s) => !isTerminalSchedule(s) },
  cancel: { permission: 'schedules.write', triggers: ['cancel'] },
});

/**
 * `reissue` is listed on an overdue instalment. The endpoint also takes an issued instalment whose
 * link's payment has ended, which the service re-issues on its own until the grace period ends; that
 * depends on the payment, not on the row, so it is not listed. A reissue once the instalment's links
 * are used up is refused with the API's own message.
 */
export const instalmentActions = defineActions(
  instalmentMachine,
  (i: { status: InstalmentStatus }) => i.status,
  {
    edit: { permission: 'schedules.write', statuses: (s) => s === 'scheduled' },
    issue_now: { permission: 'schedules.write', triggers: ['issue'] },
    reissue: { permission: 'schedules.write', triggers: ['reissue'], statuses: (s) => s === 'overdue' },
    cancel: { permission: 'schedules.write', triggers: ['cancel'] },
    simulate_overdue: { permission: 'sandbox.simulate', triggers: ['overdue'], sandboxOnly: true },
  },
);

export const ScheduleActionsSchema = allowedActionsSchema(scheduleActions, {
  edit: 'PATCH /payment-schedules/{schedule_id} (active or past_due)',
  cancel: 'POST /payment-schedules/{schedule_id}/cancel (active or past_due)',
});

export const InstalmentActionsSchema = allowedActionsSchema(instalmentActions, {
  edit: 'PATCH …/instalments/{instalment_id} (scheduled)',
  issue_now: 'POST …/instalments/{instalment_id}/issue-now (scheduled)',
  reissue: 'POST …/instalments/{instalment_id}/reissue (overdue, while the instalment has links left)',
  cancel: 'POST …/instalments/{instalment_id}/cancel (scheduled, issued or overdue)',
  simulate_overdue:
    'POST /sandbox/payment-schedules/{schedule_id}/instalments/{instalment_id}/simulate with `action: overdue` (sandbox; issued)',
});

/** The schedule's view with the caller's actions on it and on each instalment. */
export function withScheduleActions(dto: ScheduleDto, viewer: ActionViewer) {
  return {
    ...dto,
    instalments: dto.instalments.map((i) => ({ ...i, allowed_actions: instalmentActions.of(i, viewer) })),
    allowed_actions: scheduleActions.of(dto, viewer),
  };
}
