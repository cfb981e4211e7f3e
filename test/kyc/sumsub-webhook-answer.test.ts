/**
 * Sumsub counts a webhook not answered within 5 s as failed and resends it: the service answers
 * after the digest and duplicate checks, and the re-read of the applicant runs as a job (its row is
 * the receipt), retried while Sumsub is unreachable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationRereadJob } from '../../src/modules/kyc/notifications.service';
import type { TestContext } from '../helpers/app';
import { runJobs } from '../helpers/jobs';
import type { SumsubStandin } from '../standins/sumsub/server';
import { webhookPayload } from '../standins/sumsub/webhooks';
import { api, createKycWorld, createLink, type KycWorld } from './fixtures';
import { startSumsubDeployment } from './sumsub-fixtures';

let ctx: TestContext;
let standin: SumsubStandin;
beforeAll(async () => {
  // Calls may take up to 10 s each, as in production: a re-read can outlast Sumsub's 5 s.
  ({ ctx, standin } = await startSumsubDeployment({ SVC_SUMSUB_TIMEOUT_MS: '10000' }));
});
afterAll(async () => {
  await ctx?.close();
  await standin?.close();
});

const applicantOfUser = (userId: string) => standin.control.byExternalUserId(`svc-kyc-${userId}`)!;
const detail = (w: KycWorld) => api(ctx, 'GET', `/kyc/detail/${w.userId}`, w.caller.headers);

async function eventually(check: () => Promise<boolean>, ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not met in time');
}

describe('the webhook is answered within 5 s', () => {
  it('Sumsub slow (3 s a call): each webhook answered 200 in time; the re-read finishes after', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    standin.control.setDelayMs(3000);
    try {
      await standin.control.decide(a.id, 'approve');
    } finally {
      standin.control.setDelayMs(0);
    }
    // The stand-in's sender gives up after 5 s (status null), as Sumsub does.
    expect(standin.control.webhooks.sent.slice(-2).map((s) => s.status)).toEqual([200, 200]);
    await eventually(async () => (await detail(w)).json().status === 'approved', 20_000);
  }, 40_000);

  it('Sumsub down during the re-read: answered 200, the job retries and records the decision', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    standin.control.webhooks.settings.drop = true;
    await standin.control.decide(a.id, 'approve');
    standin.control.webhooks.settings.drop = false;
    // Only this applicant's reads fail (a re-read of the previous test may still be in flight).
    standin.control.failNext({ status: 503, count: 3, path: new RegExp(a.id) });
    await standin.control.webhooks.send(
      'applicantReviewed',
      webhookPayload('applicantReviewed', a, new Date()),
    );
    const sent = standin.control.webhooks.sent.at(-1)!;
    expect(sent.status).toBe(200);
    expect((await detail(w)).statusCode).toBe(404);
    // The same webhook resent (Sumsub's resend) is a duplicate: one job only.
    await standin.control.webhooks.resendLast();
    expect(standin.control.webhooks.sent.at(-1)!.status).toBe(200);
    ctx.clock.advance(60 * 1000);
    expect(await runJobs(ctx, verificationRereadJob)).toBe(1);
    expect((await detail(w)).json().status).toBe('approved');
  });
});
