/** A webhook delivery's `allowed_actions`, from the delivery machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { type DeliveryStatus, deliveryMachine } from './webhooks.machine';

interface DeliveryFacts {
  status: DeliveryStatus;
  /** An attempt holds the delivery's lease: a retry now is the in-flight 409. */
  inFlight: boolean;
  /** Its destination was deleted since: a retry is the 409 `webhookDestinationDeleted`. */
  destinationGone: boolean;
}

export const deliveryActions = defineActions(deliveryMachine, (d: DeliveryFacts) => d.status, {
  retry: {
    permission: 'webhooks.write',
    triggers: ['manual_retry'],
    when: (d) => !d.inFlight && !d.destinationGone,
  },
});

export const DeliveryActionsSchema = allowedActionsSchema(deliveryActions, {
  retry:
    'POST /webhooks/deliveries/{delivery_id}/retry (any status, unless an attempt is in flight or ' +
    'its destination was deleted since)',
});

export function deliveryActionsOf(
  d: { status: DeliveryStatus; lockedUntil: Date | null; destinationGone?: boolean },
  viewer: ActionViewer,
  now: Date,
) {
  return deliveryActions.of(
    {
      status: d.status,
      inFlight: d.lockedUntil !== null && d.lockedUntil > now,
      destinationGone: d.destinationGone === true,
    },
    viewer,
  );
}
