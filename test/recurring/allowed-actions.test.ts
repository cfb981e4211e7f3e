/**
 * The allowed_actions of a recurring payment and of its runs match what the API accepts, per status
 * and per role.
 */
import { describe, expect, it } from 'vitest';
import { recurringActions, runActions } from '../../src/modules/recurring/recurring.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import { api, createActive, createRecurring, runsOf, settleBank, simulate } from './fixtures';

const suite = paymentApp();

type Action = (typeof recurringActions.names)[number];

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  pending_authorization: {
    expected: ['edit', 'cancel'],
    make: async () => (await createRecurring(suite.ctx, suite.w)).definition_id,
  },
  active: {
    expected: ['edit', 'pause', 'cancel'],
    make: async () => (await createActive(suite.ctx, suite.w)).definition_id,
  },
  paused: {
    expected: ['edit', 'resume', 'cancel'],
    make: async () => {
      const id = (await createActive(suite.ctx, suite.w)).definition_id;
      expect((await api(suite.ctx, suite.w, 'POST', `/recurring-payments/${id}/pause`, {})).statusCode).toBe(
        200,
      );
      return id;
    },
  },
  revoked: {
    expected: [],
    make: async () =>
      (await simulate(suite.ctx, suite.w, (await createActive(suite.ctx, suite.w)).definition_id, 'revoke'))
        .definition_id,
  },
  authorization_failed: {
    expected: [],
    make: async () =>
      (
        await simulate(
          suite.ctx,
          suite.w,
          (
            await createRecurring(suite.ctx, suite.w)
          ).definition_id,
          'reject_authorization',
        )
      ).definition_id,
  },
};

const perform = (action: Action, id: string) =>
  action === 'edit'
    ? api(suite.ctx, suite.w, 'PATCH', `/recurring-payments/${id}`, { description: 'Changed' })
    : api(suite.ctx, suite.w, 'POST', `/recurring-payments/${id}/${action}`, {});

describe('recurring payment allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: recurringActions.names,
        expected,
        make,
        actionsOf: async (id) =>
          (await api(suite.ctx, suite.w, 'GET', `/recurring-payments/${id}`)).json().allowed_actions,
        perform,
      }));

  it('a role without recurring.write sees none; list rows carry theirs', async () => {
    const id = (await createActive(suite.ctx, suite.w)).definition_id;
    const dev = await createTestClient(suite.ctx, { role: 'developer', clientId: suite.w.caller.clientId });
    const r = await suite.ctx.app.inject({ url: `/api/v1/recurring-payments/${id}`, headers: dev.headers });
    expect(r.json().allowed_actions).toEqual([]);
    const list = (await api(suite.ctx, suite.w, 'GET', '/recurring-payments?page_size=100')).json()
      .recurring_payments as {
      definition_id: string;
      allowed_actions: string[];
    }[];
    expect(list.find((d) => d.definition_id === id)?.allowed_actions).toEqual(['edit', 'pause', 'cancel']);
  });
});

type RunAction = (typeof runActions.names)[number];

/** A run is named `<definition_id>/<run_id>`: the first run of a new active recurring payment. */
async function firstRun(amount: string, o: { settle?: boolean; revoke?: boolean } = {}) {
  const d = await createActive(suite.ctx, suite.w, { amount });
  if (o.settle) {
    await settleBank(suite.ctx, suite.w);
    // Under a loaded CI machine one settle round has twice left the run in flight (cause not found
    // yet, see the closing note of 2026-11-29): settle until the bank's answer is in, a few rounds at most.
    for (let i = 0; i < 5; i++) {
      const [run] = await runsOf(suite.ctx, suite.w, d.definition_id);
      if (run && run.status !== 'processing' && run.status !== 'scheduled') break;
      await settleBank(suite.ctx, suite.w);
    }
  }
  if (o.revoke) await simulate(suite.ctx, suite.w, d.definition_id, 'revoke');
  const [r] = await runsOf(suite.ctx, suite.w, d.definition_id);
  return `${d.definition_id}/${r!.run_id}`;
}

async function runActionsOf(path: string): Promise<string[]> {
  const [id, runId] = path.split('/');
  const r = await api(suite.ctx, suite.w, 'GET', `/recurring-payments/${id}/runs/${runId}`);
  expect(r.statusCode, r.body).toBe(200);
  const fromList = (await runsOf(suite.ctx, suite.w, id!)).find((x) => x.run_id === runId) as unknown as {
    allowed_actions: string[];
  };
  expect(fromList.allowed_actions, 'the list says the same').toEqual(r.json().allowed_actions);
  return r.json().allowed_actions;
}

const performOnRun = (action: RunAction, path: string) => {
  const [id, runId] = path.split('/');
  return action === 'retry'
    ? api(suite.ctx, suite.w, 'POST', `/recurring-payments/${id}/retry`, { run_id: runId })
    : api(suite.ctx, suite.w, 'POST', `/recurring-payments/${id}/runs/${runId}/skip`, {});
};

// Amounts ending .51 and .52 make the sandbox bank refuse with a retryable and a final failure.
const RUNS: Record<string, { expected: RunAction[]; make: () => Promise<string> }> = {
  scheduled: { expected: ['skip'], make: () => firstRun('10.00') },
  succeeded: { expected: [], make: () => firstRun('10.00', { settle: true }) },
  retry_scheduled: { expected: ['retry'], make: () => firstRun('10.51', { settle: true }) },
  failed: { expected: ['retry'], make: () => firstRun('10.52', { settle: true }) },
  'failed, its recurring payment revoked': {
    expected: [],
    make: () => firstRun('10.52', { settle: true, revoke: true }),
  },
};

describe('recurring run allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(RUNS))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: runActions.names,
        expected,
        make,
        actionsOf: runActionsOf,
        perform: performOnRun,
      }));

  it('the retry and skip answers carry the run’s actions after the change; a developer sees none', async () => {
    const path = await firstRun('10.52', { settle: true });
    const retried = await performOnRun('retry', path);
    expect(retried.statusCode).toBe(202);
    expect(retried.json()).toMatchObject({ status: 'processing', allowed_actions: [] });
    const dev = await createTestClient(suite.ctx, { role: 'developer', clientId: suite.w.caller.clientId });
    const scheduled = await firstRun('10.00');
    const [sid, srun] = scheduled.split('/');
    const seen = await suite.ctx.app.inject({
      url: `/api/v1/recurring-payments/${sid}/runs/${srun}`,
      headers: dev.headers,
    });
    expect(seen.json().allowed_actions).toEqual([]);
    const skipped = await performOnRun('skip', scheduled);
    expect(skipped.json()).toMatchObject({ status: 'skipped', allowed_actions: [] });
  });
});
