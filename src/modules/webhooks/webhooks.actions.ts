/** A webhook delivery's `allowed_actions`, from the delivery machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { type DeliveryStatus, deliveryMachine } from './webhooks.machine';

interface DeliveryFacts {
  status: DeliveryStatus;
  /** An attempt holds the delivery's lease: a retry now is the in-flight 409. */
  inFlight: boolean;
}

export const deliveryActions = defineActions(deliveryMachine, (d: DeliveryFacts) => d.status, {
  retry: { permission: 'webhooks.write', triggers: ['manual_retry'], when: (d) => !d.inFlight },
});

export const DeliveryActionsSchema = allowedActionsSchema(deliveryActions, {
  retry:
    'POST /webhooks/deliveries/{delivery_id}/retry (any status, unless an attempt is in flight; ' +
    'still 409 when its destination was deleted since, which this list does not check)',
});

export function deliveryActionsOf(
  d: { status: DeliveryStatus; lockedUntil: Date | null },
  viewer: ActionViewer,
  now: Date,
) {
  return deliveryActions.of(
    { status: d.status, inFlight: d.lockedUntil !== null && d.lockedUntil > now },
    viewer,
  );
}
