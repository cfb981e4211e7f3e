/**
 * POST /sandbox/contracts/requests/{id}/simulate: asks the sandbox provider to emit a notification;
 * the state change then runs the production path. An action the current state does not allow is the
 * machine's refusal (400 with the real action's message).
 */
import type { Deps } from '../../../deps';
import type { SimulateAction } from '../../../providers/esign/port';
import { AppError, badRequest, invalidField, notFound } from '../../../shared/errors';
import { ContractMessages } from '../contracts.messages';
import { participantMachine } from '../participants/participants.machine';
import { assertNotTerminal, requestMachine } from './requests.machine';
import { participantsOf } from './requests.repo';
import { requireRequest } from './requests.service';
import { requestView } from './requests.view';

const PARTICIPANT_MOVE = { view: 'view', sign: 'complete', decline: 'decline', bounce: 'bounce' } as const;

export async function simulateRequest(
  deps: Deps,
  clientId: string,
  id: string,
  b: { action: SimulateAction; participant_id?: string; reason?: string },
) {
  if (deps.config.environment !== 'sandbox') throw notFound('Not found');
  const esign = deps.providers.esign;
  if (!esign.configured || !esign.simulate) throw new AppError(503, ContractMessages.providerNotConfigured);
  const r = await requireRequest(deps, clientId, id);
  const status = r.status;
  if (b.action === 'fail' || b.action === 'expire') requestMachine.assert(b.action, status);
  else {
    if (!b.participant_id)
      throw invalidField(['body', 'participant_id'], ContractMessages.simulateNeedsParticipant);
    const p = (await participantsOf(deps.db, r.id)).find((x) => x.id === b.participant_id);
    if (!p) throw notFound(ContractMessages.participantNotFound);
    assertNotTerminal(status);
    participantMachine.assert(PARTICIPANT_MOVE[b.action], p.status);
  }
  if (!r.envelopeRef) throw badRequest(ContractMessages.noEnvelopeYet(status));
  await esign.simulate(r.envelopeRef, b.action, b.participant_id ?? null, b.reason ?? null);
  return requestView(deps, deps.db, await requireRequest(deps, clientId, id));
}
