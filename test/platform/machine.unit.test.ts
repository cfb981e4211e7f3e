/** defineMachine: the predicates it derives from one table, its refusals, and the checks at load. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineMachine, type StatusOf, type TriggerOf } from '../../src/platform/machine';
import { AppError, badRequest, conflict } from '../../src/shared/errors';

const DOOR_STATUSES = ['closed', 'open', 'locked', 'broken'] as const;

const byTrigger = defineMachine({
  name: 'door',
  statuses: DOOR_STATUSES,
  transitions: {
    open: { from: ['closed'], to: 'open' },
    close: { from: ['open'], to: 'closed' },
    lock: { from: ['closed'], to: 'locked' },
    unlock: { from: ['locked'], to: 'closed' },
    break: { from: ['closed', 'open', 'locked'], to: 'broken' },
  },
  terminal: ['broken'],
  refused: (t, from) =>
    from === 'broken' ? conflict(`Door is broken`) : badRequest(`Cannot ${t} a door that is ${from}`),
});

describe('defineMachine', () => {
  it('derives the status and trigger unions from the one table', () => {
    expectTypeOf<StatusOf<typeof byTrigger>>().toEqualTypeOf<(typeof DOOR_STATUSES)[number]>();
    expectTypeOf<TriggerOf<typeof byTrigger>>().toEqualTypeOf<
      'open' | 'close' | 'lock' | 'unlock' | 'break'
    >();
  });

  it('answers can, next, sources, triggerFor, isTerminal and isStatus from the table', () => {
    expect(byTrigger.can('open', 'closed')).toBe(true);
    expect(byTrigger.can('open', 'locked')).toBe(false);
    expect(byTrigger.next('break', 'locked')).toBe('broken');
    expect(byTrigger.next('unlock', 'open')).toBeNull();
    expect(byTrigger.sources('break')).toEqual(['closed', 'open', 'locked']);
    expect(byTrigger.triggerFor('closed', 'locked')).toBe('lock');
    expect(byTrigger.triggerFor('closed', 'broken', ['open', 'close'])).toBeNull();
    expect(byTrigger.triggerFor('open', 'locked')).toBeNull();
    expect(DOOR_STATUSES.filter(byTrigger.isTerminal)).toEqual(['broken']);
    expect(byTrigger.isStatus('open')).toBe(true);
    expect(byTrigger.isStatus('ajar')).toBe(false);
  });

  it('the table may be given as rows, for triggers whose target depends on the status', () => {
    const rows = defineMachine({
      name: 'delivery',
      statuses: ['pending', 'retrying', 'done'] as const,
      transitions: [
        { trigger: 'retry', from: 'pending', to: 'pending' },
        { trigger: 'retry', from: 'retrying', to: 'retrying' },
        { trigger: 'retry', from: 'done', to: 'pending' },
        { trigger: 'fail', from: 'pending', to: 'retrying' },
      ],
      terminal: [],
      refused: () => badRequest('no'),
    });
    expect(rows.next('retry', 'done')).toBe('pending');
    expect(rows.next('retry', 'retrying')).toBe('retrying');
    expect(rows.next('fail', 'done')).toBeNull();
    expect(rows.moves).toHaveLength(4);
  });

  it('assert returns the target or throws the refusal the definition names (400 or 409)', () => {
    expect(byTrigger.assert('lock', 'closed')).toBe('locked');
    try {
      byTrigger.assert('lock', 'open');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ statusCode: 400, detail: 'Cannot lock a door that is open' });
    }
    expect(() => byTrigger.assert('open', 'broken')).toThrow(expect.objectContaining({ statusCode: 409 }));
    expect(byTrigger.refused('close', 'closed')).toMatchObject({ statusCode: 400 });
  });

  it('refuses a wrong table when it is defined, not when a request meets it', () => {
    const base = { name: 'bad', statuses: ['a', 'b'] as const, refused: () => badRequest('x') };
    expect(() =>
      defineMachine({ ...base, transitions: { go: { from: ['a'], to: 'c' as 'b' } }, terminal: [] }),
    ).toThrow("bad machine: 'c' (go) is not a status");
    expect(() =>
      defineMachine({ ...base, transitions: { go: { from: ['b'], to: 'a' } }, terminal: ['b'] }),
    ).toThrow("bad machine: terminal status 'b' has a move (go)");
    expect(() =>
      defineMachine({
        ...base,
        transitions: [
          { trigger: 'go', from: 'a', to: 'b' },
          { trigger: 'go', from: 'a', to: 'a' },
        ],
        terminal: [],
      }),
    ).toThrow("bad machine: go from 'a' has two targets");
    expect(() =>
      defineMachine({ ...base, transitions: { go: { from: ['a'], to: 'b' } }, terminal: ['z' as 'b'] }),
    ).toThrow("bad machine: terminal 'z' is not a status");
  });
});
