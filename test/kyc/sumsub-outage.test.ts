/**
 * Sumsub down, seen through the service: the adapter reports an outage as the verification port's
 * own error (VerificationUnavailableError), and each KYC service that reaches Sumsub answers it as
 * "provider unavailable" (503) rather than as a refusal: a new link, a file download (never a fake
 * 404), and the hosted page's hand-over (never the final page, even for a decided person).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KycMessages } from '../../src/modules/kyc/kyc.messages';
import type { TestContext } from '../helpers/app';
import type { SumsubStandin } from '../standins/sumsub/server';
import { ALL_GROUPS, api, createKycWorld, createLink, type KycWorld, setGroups, tokenOf } from './fixtures';
import { startSumsubDeployment } from './sumsub-fixtures';

let ctx: TestContext;
let standin: SumsubStandin;
let w: KycWorld;
let link: { verification_url: string };
beforeAll(async () => {
  ({ ctx, standin } = await startSumsubDeployment());
  w = await createKycWorld(ctx, { productionAccess: true });
  await setGroups(ctx, w.caller.clientId, ALL_GROUPS);
  link = await createLink(ctx, w, {});
  expect((await handOver(link.verification_url)).statusCode).toBe(303);
  await standin.control.decide(standin.control.byExternalUserId(`svc-kyc-${w.userId}`)!.id, 'approve');
}, 120_000);
afterAll(async () => {
  await ctx?.close();
  await standin?.close();
});

async function handOver(url: string) {
  const page = await ctx.app.inject({ method: 'GET', url: `/verify/${tokenOf(url)}` });
  expect(page.statusCode).toBe(200);
  const version = /name="consent_version" value="([^"]+)"/.exec(page.body)![1]!;
  return ctx.app.inject({
    method: 'POST',
    url: `/verify/${tokenOf(url)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ consent: 'accept', consent_version: version }).toString(),
  });
}

describe('Sumsub down: the port error, answered as 503 by every KYC path', () => {
  it('a stored file is a 503 while Sumsub is down, not a 404', async () => {
    const url = `/kyc/detail/${w.userId}/documents/passport`;
    expect((await api(ctx, 'GET', url, w.caller.headers)).statusCode).toBe(200);
    standin.control.setDown(true);
    const down = await api(ctx, 'GET', url, w.caller.headers);
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ detail: KycMessages.providerUnavailable });
    standin.control.setDown(false);
  });

  it('the hosted page answers 503 while Sumsub is down, even to a decided person', async () => {
    standin.control.setDown(true);
    const res = await handOver(link.verification_url);
    expect(res.statusCode).toBe(503);
    expect(res.body).not.toContain('/complete');
    standin.control.setDown(false);
  });
});
