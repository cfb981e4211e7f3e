/** An ownership request's `allowed_actions`, from the ownership machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { awaitsProof, type OwnershipStatus, ownershipMachine } from './ownership.machine';

export const ownershipActions = defineActions(
  ownershipMachine,
  (r: { status: OwnershipStatus }) => r.status,
  {
    submit_proof: { permission: 'screening.write', statuses: awaitsProof },
    cancel: { permission: 'screening.write', triggers: ['cancel'] },
    simulate: { permission: 'sandbox.simulate', triggers: ['expire'], sandboxOnly: true },
  },
);

export const OwnershipActionsSchema = allowedActionsSchema(ownershipActions, {
  submit_proof: 'POST /screening/wallet-ownership/requests/{request_id}/proof (pending)',
  cancel: 'POST /screening/wallet-ownership/requests/{request_id}/cancel (pending or verifying)',
  simulate:
    'POST /sandbox/screening/wallet-ownership/requests/{request_id}/simulate (sandbox; pending or verifying: ' +
    '`expire` in both, the deposit actions only in verifying)',
});

export function withOwnershipActions<V extends { status: OwnershipStatus }>(view: V, viewer: ActionViewer) {
  return Object.assign(view, { allowed_actions: ownershipActions.of(view, viewer) });
}
