/**
 * POST /sandbox/tickets/{id}/simulate: the support loop without staff tools. A simulated support
 * agent replies or resolves through the staff reply itself (postStaffMessage), so the status move,
 * the ticket.* events, the emails, the notifications and the activity entry are the real ones.
 */
import type { Deps } from '../../deps';
import { notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { findTicket } from './tickets.repo';
import type { SimulateTicketInput } from './tickets.schemas';
import { getClientTicket } from './tickets.service';
import { postStaffMessage, type StaffAuthor } from './tickets-admin.service';

const SANDBOX_AGENT: StaffAuthor = { staffId: null, name: 'Sandbox support agent', simulated: true };

const DEFAULT_TEXT: Record<SimulateTicketInput['action'], string> = {
  agent_reply:
    'Thank you for your message. This is a simulated reply from the sandbox support agent: ' +
    'could you send us more details?',
  resolve:
    'This is a simulated answer from the sandbox support agent: we have resolved this ticket. ' +
    'Reply if anything is still wrong, or close it.',
};

export async function simulateTicket(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  clientId: string,
  id: string,
  input: SimulateTicketInput,
) {
  if (deps.config.environment !== 'sandbox') throw notFound(M.notFound);
  if (!(await findTicket(deps.db, clientId, id))) throw notFound(M.ticketNotFound);
  // agent_reply: the staff default (open -> awaiting_client; a resolved ticket stays resolved).
  await postStaffMessage(deps, SANDBOX_AGENT, id, {
    body: input.body ?? DEFAULT_TEXT[input.action],
    ...(input.action === 'resolve' ? { status: 'resolved' as const } : {}),
  });
  return getClientTicket(deps, clientId, id);
}
