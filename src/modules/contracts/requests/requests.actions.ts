/** A contract request's `allowed_actions`, from the request machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../../platform/actions';
import { awaitsParticipants, type RequestStatus, requestMachine } from './requests.machine';

export const requestActions = defineActions(
  requestMachine,
  (r: { status: RequestStatus; delivery: string }) => r.status,
  {
    void: { permission: 'contracts.send', triggers: ['void'] },
    remind: {
      permission: 'contracts.send',
      statuses: awaitsParticipants,
      when: (r) => r.delivery === 'email',
    },
    simulate: { permission: 'sandbox.simulate', statuses: awaitsParticipants, sandboxOnly: true },
  },
);

export const RequestActionsSchema = allowedActionsSchema(requestActions, {
  void: 'POST /contracts/requests/{contract_request_id}/void (pending, sent or in_progress)',
  remind:
    'POST /contracts/requests/{contract_request_id}/remind (sent or in_progress, delivery email; 429 within the reminder interval)',
  simulate:
    "POST /sandbox/contracts/requests/{contract_request_id}/simulate (sandbox, sent or in_progress; each participant's own move is checked against its status)",
});

export function withRequestActions<V extends { status: RequestStatus; delivery: string }>(
  view: V,
  viewer: ActionViewer,
) {
  return Object.assign(view, { allowed_actions: requestActions.of(view, viewer) });
}
