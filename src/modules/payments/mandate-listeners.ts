/**
 * VRP mandate notifications arrive on the same signed bank route as payment notifications
 * (`kind: "mandate"`, ref_id = the mandate_ref). The recurring-payments module registers the handler
 * here, so the payments module does not depend on it.
 */
import type { Deps } from '../../deps';
import type { BankNotification } from '../../providers/bank/port';

export type MandateNotificationHandler = (deps: Deps, n: BankNotification) => Promise<boolean>;

let handler: MandateNotificationHandler | null = null;

export function onMandateNotification(fn: MandateNotificationHandler): void {
  handler = fn;
}

export async function dispatchMandateNotification(deps: Deps, n: BankNotification): Promise<boolean> {
  return handler ? handler(deps, n) : false;
}
