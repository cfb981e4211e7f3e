/** Client lifecycle as far as self-service registration goes. */
import { CLIENT_STATUSES, type ClientStatus } from '../../../db/schema/clients';
import { defineMachine } from '../../../platform/machine';
import { badRequest } from '../../../shared/errors';
import { M } from '../../../shared/messages';

export { CLIENT_STATUSES, type ClientStatus };

/** Verifying the email of an already active client is what verify-email answers for a used code. */
export const clientMachine = defineMachine({
  name: 'client',
  statuses: CLIENT_STATUSES,
  transitions: { verify_email: { from: ['pending_verification'], to: 'active' } },
  terminal: ['active'],
  refused: () => badRequest(M.verificationCodeInvalid),
});

export const isAwaitingVerification = (status: ClientStatus): boolean => status === 'pending_verification';
