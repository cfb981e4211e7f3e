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

/** `reissue` is not offered yet: on an issued instalment it depends on its link's payment, not on the row. */
export const instalmentActions = defineActions(
  instalmentMachine,
  (i: { status: InstalmentStatus }) => i.status,
  {
    edit: { permission: 'schedules.write', statuses: (s) => s === 'scheduled' },
    issue_now: { permission: 'schedules.write', triggers: ['issue'] },
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
