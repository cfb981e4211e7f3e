/**
 * The contract flow status machine: a draft is edited freely, activation freezes it. Archiving is a
 * flag beside the status (`archived_at`), not a move.
 */
import { CONTRACT_FLOW_STATUSES, type ContractFlowStatus } from '../../../db/schema/index';
import { defineMachine } from '../../../platform/machine';
import { badRequest } from '../../../shared/errors';
import { ContractMessages } from '../contracts.messages';

export const flowMachine = defineMachine({
  name: 'contract flow',
  statuses: CONTRACT_FLOW_STATUSES,
  transitions: { activate: { from: ['draft'], to: 'active' } },
  terminal: ['active'],
  refused: () => badRequest(ContractMessages.flowActiveNoEdit),
});

/** PATCH and DELETE take a draft only. */
export const isDraftFlow = (s: ContractFlowStatus): boolean => s === 'draft';
