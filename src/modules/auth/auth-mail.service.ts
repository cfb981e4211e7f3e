import type { Deps } from '../../deps';
import { MailDeliveryError, type MailMessage } from '../../providers/mail/port';
import { AppError } from '../../shared/errors';
import { M } from '../../shared/messages';

/** Sends an authentication email; a delivery failure becomes 503 (contract "Email"). */
export async function sendAuthMail(deps: Deps, message: MailMessage, onFailure?: () => Promise<void>) {
  try {
    await deps.mailer.send(message);
  } catch (err) {
    if (onFailure) await onFailure();
    if (err instanceof MailDeliveryError) {
      deps.log.warn(
        { err: err.cause instanceof Error ? err.cause.message : String(err.cause) },
        'auth mail failed',
      );
      throw new AppError(503, M.emailDeliveryFailed);
    }
    throw err;
  }
}
