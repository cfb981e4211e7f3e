/** The opco status machine table: exactly the transitions of the contract, everything else refused with a 400. */
import { describe, expect, it } from 'vitest';
import {
  assertCanApply,
  canApply,
  isBindable,
  isEditable,
  OPCO_STATUSES,
  OPCO_TRANSITIONS,
  type OpcoTransition,
} from '../../src/modules/opcos/opcos.machine';
import { AppError } from '../../src/shared/errors';

describe('opco machine', () => {
  it('allows exactly the contract transitions', () => {
    const allowed = new Set<string>();
    for (const t of Object.keys(OPCO_TRANSITIONS) as OpcoTransition[]) {
      for (const from of OPCO_STATUSES)
        if (canApply(t, from)) allowed.add(`${from}->${OPCO_TRANSITIONS[t].to}`);
    }
    expect([...allowed].sort()).toEqual(
      [
        'draft->awaiting_approval',
        'draft->pending_superadmin_review',
        'pending_superadmin_review->awaiting_approval',
        'pending_superadmin_review->rejected',
        'awaiting_approval->activated',
        'awaiting_approval->rejected',
        'activated->deactivated',
      ].sort(),
    );
  });

  it('refuses everything else with a 400 naming both statuses', () => {
    for (const t of Object.keys(OPCO_TRANSITIONS) as OpcoTransition[]) {
      for (const from of OPCO_STATUSES) {
        if (canApply(t, from)) continue;
        try {
          assertCanApply(t, from);
          expect.unreachable(`${t} from ${from}`);
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).statusCode).toBe(400);
          expect((err as AppError).detail).toBe(
            `Opco cannot move from '${from}' to '${OPCO_TRANSITIONS[t].to}'`,
          );
        }
      }
    }
  });

  it('rejected and deactivated are terminal and unbindable; only drafts are editable', () => {
    for (const s of ['rejected', 'deactivated'] as const) {
      expect(isBindable(s)).toBe(false);
      for (const t of Object.keys(OPCO_TRANSITIONS) as OpcoTransition[]) expect(canApply(t, s)).toBe(false);
    }
    expect(OPCO_STATUSES.filter(isEditable)).toEqual(['draft']);
  });
});
