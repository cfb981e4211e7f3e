/** allowed_actions of payment schedules and their instalments match what the API accepts. */
import { describe, expect, it } from 'vitest';
import { instalmentActions, scheduleActions } from '../../src/modules/schedules/schedules.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import { createSchedule, getSchedule } from './fixtures';

const suite = paymentApp();

const call = (method: 'POST' | 'PATCH', url: string, payload?: object) =>
  suite.ctx.app.inject({
    method,
    url: `/api/v1/payment-schedules/${url}`,
    headers: suite.w.caller.headers,
    payload,
  });

const fresh = () =>
  createSchedule(suite.ctx, suite.w, {
    instalments: [
      { amount: '5.00', due_date: '2026-06-01' },
      { amount: '5.00', due_date: '2026-07-01' },
    ],
  });

type ScheduleAction = (typeof scheduleActions.names)[number];
type InstalmentAction = (typeof instalmentActions.names)[number];

const SCHEDULES: Record<string, { expected: ScheduleAction[]; make: () => Promise<string> }> = {
  active: { expected: ['edit', 'cancel'], make: async () => (await fresh()).schedule_id },
  canceled: {
    expected: [],
    make: async () => {
      const id = (await fresh()).schedule_id;
      expect((await call('POST', `${id}/cancel`, {})).statusCode).toBe(200);
      return id;
    },
  },
};

/** An instalment is named `<schedule_id>/instalments/<instalment_id>`. */
async function instalmentIn(verb: 'issue-now' | 'cancel' | 'overdue' | null) {
  const s = await fresh();
  const path = `${s.schedule_id}/instalments/${s.instalments[0]!.instalment_id}`;
  if (verb === 'overdue') {
    expect((await call('POST', `${path}/issue-now`)).statusCode).toBe(200);
    expect((await simulateOverdue(path)).statusCode).toBe(200);
  } else if (verb) expect((await call('POST', `${path}/${verb}`)).statusCode).toBe(200);
  return path;
}

const simulateOverdue = (path: string) =>
  suite.ctx.app.inject({
    method: 'POST',
    url: `/api/v1/sandbox/payment-schedules/${path}/simulate`,
    headers: suite.w.caller.headers,
    payload: { action: 'overdue' },
  });

const INSTALMENTS: Record<string, { expected: InstalmentAction[]; make: () => Promise<string> }> = {
  scheduled: { expected: ['edit', 'issue_now', 'cancel'], make: () => instalmentIn(null) },
  // Its link's payment is still open: a reissue is refused, so it is not listed.
  issued: { expected: ['cancel', 'simulate_overdue'], make: () => instalmentIn('issue-now') },
  overdue: { expected: ['reissue', 'cancel'], make: () => instalmentIn('overdue') },
  canceled: { expected: [], make: () => instalmentIn('cancel') },
};

async function instalmentActionsOf(path: string) {
  const [scheduleId, , instalmentId] = path.split('/');
  const s = await getSchedule(suite.ctx, suite.w.caller, scheduleId!);
  return s.instalments.find((i) => i.instalment_id === instalmentId)!.allowed_actions;
}

describe('payment schedule allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(SCHEDULES))
    it(`schedule ${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: scheduleActions.names,
        expected,
        make,
        actionsOf: async (id) =>
          (await getSchedule(suite.ctx, suite.w.caller, id)).allowed_actions as string[],
        perform: (action, id) =>
          action === 'edit'
            ? call('PATCH', id, { description: 'Changed' })
            : call('POST', `${id}/cancel`, {}),
      }));

  for (const [state, { expected, make }] of Object.entries(INSTALMENTS))
    it(`instalment ${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: instalmentActions.names,
        expected,
        make,
        actionsOf: instalmentActionsOf,
        perform: (action, path) =>
          action === 'edit'
            ? call('PATCH', path, { amount: '6.00' })
            : action === 'simulate_overdue'
              ? simulateOverdue(path)
              : call('POST', `${path}/${action === 'issue_now' ? 'issue-now' : action}`),
      }));

  it('a role without schedules.write sees none', async () => {
    const s = await fresh();
    const dev = await createTestClient(suite.ctx, { role: 'developer', clientId: suite.w.caller.clientId });
    const seen = await getSchedule(suite.ctx, dev, s.schedule_id);
    expect(seen.allowed_actions).toEqual([]);
    expect(seen.instalments.map((i) => i.allowed_actions)).toEqual([[], []]);
  });
});
