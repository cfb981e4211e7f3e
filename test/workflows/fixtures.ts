/** Workflow test helpers: API calls, small graphs, trigger signing, engine ticks. */

import { processDueWorkflowRuns } from '../../src/modules/workflows/workflows-engine.service';
import { hmacSha256Hex } from '../../src/shared/crypto';
import type { TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';

export function api(ctx: TestContext, caller: TestCaller) {
  const call = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    ctx.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { ...caller.headers, ...headers },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  return {
    call,
    async create(body: Record<string, unknown>) {
      const res = await call('POST', '/workflows', body);
      if (res.statusCode !== 201) throw new Error(`create failed ${res.statusCode}: ${res.body}`);
      return res.json();
    },
    async publish(id: string) {
      const res = await call('POST', `/workflows/${id}/publish`);
      if (res.statusCode !== 200) throw new Error(`publish failed ${res.statusCode}: ${res.body}`);
      return res.json();
    },
    async createPublished(graph: Record<string, unknown>, name = 'wf') {
      const wf = await this.create({ name, graph });
      return this.publish(wf.definition_id);
    },
    async start(id: string, input: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
      const res = await call('POST', `/workflows/${id}/runs`, { input }, headers);
      if (res.statusCode !== 201) throw new Error(`start failed ${res.statusCode}: ${res.body}`);
      return res.json();
    },
    async run(runId: string) {
      const res = await call('GET', `/workflow-runs/${runId}`);
      if (res.statusCode !== 200) throw new Error(`get run failed ${res.statusCode}: ${res.body}`);
      return res.json();
    },
  };
}

/** Runs engine ticks until nothing is due. */
export async function drain(ctx: TestContext) {
  for (let i = 0; i < 20; i++) if ((await processDueWorkflowRuns(ctx.deps)) === 0) return;
}

export const setGraph = (nodes: unknown[], trigger: 'manual' | 'webhook' = 'manual') => ({
  trigger: { type: trigger },
  nodes,
});

export const simpleGraph = (trigger: 'manual' | 'webhook' = 'manual') =>
  setGraph([{ id: 's1', type: 'set', config: { values: { greeting: 'hello {{input.name}}' } } }], trigger);

export function signTrigger(secret: string, rawBody: string, now: Date) {
  const ts = String(Math.floor(now.getTime() / 1000));
  return { 'x-svc-timestamp': ts, 'x-svc-signature': `sha256=${hmacSha256Hex(secret, `${ts}.${rawBody}`)}` };
}
