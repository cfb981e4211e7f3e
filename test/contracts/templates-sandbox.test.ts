/**
 * Templates (422 locs for bad PDFs, roles and field geometry; versions; delete while used is 409),
 * send validation, the hosted page's email OTP (5 attempts), reminders on the manual clock with the
 * manual-remind rate limit, sandbox magic inputs, participant correction, and production without an
 * e-signing adapter (503, nothing stored).
 */
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractRequests } from '../../src/db/schema/index';
import { runDueContractTimers } from '../../src/modules/contracts/requests/requests.jobs';
import { createTestApp, type MemoryMailer, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { recordStatements } from '../helpers/statement-count';
import { byRole, call, createTemplate, getReq, makePdf, participants, send, TWO_SIGNERS } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
let templateId: string;
const DAY = 86400_000;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_SANDBOX_ESIGN_AUTO_SECONDS: '5' } });
  owner = await createTestClient(ctx);
  templateId = (await createTemplate(ctx, owner)).template_id;
});
afterAll(() => ctx?.close());

/** The clock moved past the token's lifetime: a fresh token for the same client. */
async function advance(ms: number) {
  ctx.clock.advance(ms);
  owner = await createTestClient(ctx, { clientId: owner.clientId });
}

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

describe('templates', () => {
  it('422 with the loc of the problem', async () => {
    const pdf = await makePdf(1);
    const post = (body: Record<string, unknown>) =>
      call(ctx, owner)('POST', '/contracts/templates', {
        name: 'T',
        document: { file_name: 'a.pdf', content_base64: pdf },
        ...TWO_SIGNERS,
        ...body,
      });
    let res = await post({
      document: { file_name: 'a.pdf', content_base64: Buffer.from('hello').toString('base64') },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({
      loc: ['body', 'document', 'content_base64'],
      msg: 'Document must be a PDF',
    });
    res = await post({
      fields: [
        {
          field_id: 'c',
          role: 'client',
          type: 'signature',
          page: 1,
          x: 0.8,
          y: 0.1,
          width: 0.3,
          height: 0.1,
        },
        {
          field_id: 'd',
          role: 'company',
          type: 'signature',
          page: 1,
          x: 0.1,
          y: 0.1,
          width: 0.1,
          height: 0.1,
        },
      ],
    });
    expect(res.json().detail[0].loc).toEqual(['body', 'fields', 0, 'width']);
    res = await post({
      fields: [
        { field_id: 'c', role: 'client', type: 'text', page: 1, x: 0.1, y: 0.1, width: 0.1, height: 0.1 },
      ],
    });
    expect(res.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'roles', 0],
      ['body', 'roles', 1],
    ]);
    res = await post({
      fields: [
        {
          field_id: 'c',
          role: 'client',
          type: 'signature',
          page: 3,
          x: 0.1,
          y: 0.1,
          width: 0.1,
          height: 0.1,
        },
        {
          field_id: 'd',
          role: 'company',
          type: 'signature',
          page: 1,
          x: 0.1,
          y: 0.1,
          width: 0.1,
          height: 0.1,
        },
      ],
    });
    expect(res.json().detail[0].loc).toEqual(['body', 'fields', 0, 'page']);
  });

  it('edits bump the version; a used template cannot be deleted', async () => {
    const t = await createTemplate(ctx, owner);
    const p = await call(ctx, owner)('PATCH', `/contracts/templates/${t.template_id}`, { name: 'Renamed' });
    expect(p.json().version).toBe(2);
    await send(ctx, owner, { template_id: t.template_id, participants: participants('v') });
    const del = await call(ctx, owner)('DELETE', `/contracts/templates/${t.template_id}`);
    expect(del.statusCode).toBe(409);
    expect(del.json().detail).toBe('Contract template is in use; archive it instead');
    await call(ctx, owner)('POST', `/contracts/templates/${t.template_id}/archive`);
    const s = await call(ctx, owner)('POST', '/contracts/send', {
      template_id: t.template_id,
      participants: participants('w'),
    });
    expect(s.json().detail).toBe('Contract template is archived');
  });

  it('send validation: one source, every role, CC not a participant', async () => {
    let res = await call(ctx, owner)('POST', '/contracts/send', { participants: participants('x') });
    expect(res.json().detail[0].msg).toBe('Exactly one of template_id, flow_id or document is required');
    res = await call(ctx, owner)('POST', '/contracts/send', {
      template_id: templateId,
      participants: participants('x').slice(0, 1),
    });
    expect(res.json().detail[0]).toMatchObject({
      loc: ['body', 'participants'],
      msg: "Missing participant for role 'company'",
    });
    res = await call(ctx, owner)('POST', '/contracts/send', {
      template_id: templateId,
      participants: participants('x'),
      cc_recipients: [{ email: 'cleox@example.com' }],
    });
    expect(res.json().detail[0].loc).toEqual(['body', 'cc_recipients', 0, 'email']);
  });
});

describe('request list cost', () => {
  it('GET /contracts/requests is a constant number of statements whatever the page size', async () => {
    const lister = await createTestClient(ctx);
    const tpl = (await createTemplate(ctx, lister)).template_id;
    for (let i = 0; i < 6; i++)
      await send(ctx, lister, { template_id: tpl, participants: participants(`list${i}`) });
    const statementsFor = async (pageSize: number) => {
      const log = recordStatements();
      try {
        const res = await call(ctx, lister)('GET', `/contracts/requests?page_size=${pageSize}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().contract_requests).toHaveLength(pageSize);
        expect(res.json().contract_requests[0].participants).toHaveLength(2);
        expect(res.json().contract_requests[0].documents).toHaveLength(1);
      } finally {
        log.stop();
      }
      return log.texts.length;
    };
    await statementsFor(1); // warm the auth caches
    expect(await statementsFor(6)).toBe(await statementsFor(1));
  });
});

describe('cc recipients', () => {
  it('on_send gets a read-only link when the request is sent; on_completion waits', async () => {
    const r = await send(ctx, owner, {
      template_id: templateId,
      title: 'Copied agreement',
      participants: participants('cc'),
      cc_recipients: [
        { email: 'cc-early@example.com', name: 'Early', when: 'on_send' },
        { email: 'cc-late@example.com', when: 'on_completion' },
      ],
    });
    expect(r.status).toBe('sent');
    const mailer = ctx.mailer as MemoryMailer;
    const early = mailer.lastTo('cc-early@example.com');
    expect(early?.subject).toBe('You are copied on "Copied agreement"');
    const url = /read only\): (\S+)/.exec(early!.text)![1]!;
    const view = await ctx.app.inject({ method: 'GET', url: new URL(url).pathname });
    expect(view.statusCode).toBe(200);
    expect(view.body).toContain('View only');
    expect(view.body).not.toContain('name="action" value="sign"');
    expect(mailer.lastTo('cc-late@example.com')).toBeUndefined();
  });
});

describe('hosted page email OTP', () => {
  it('asks for a code and locks after 5 wrong attempts', async () => {
    const ps = participants('otp');
    const r = await send(ctx, owner, {
      template_id: templateId,
      participants: [{ ...ps[0], auth: 'email_otp' }, ps[1]],
    });
    const path = new URL(byRole(r, 'client').signing_url!).pathname;
    let page = await ctx.app.inject({ method: 'GET', url: path });
    expect(page.body).toContain('Confirm it is you');
    await ctx.app.inject({ method: 'POST', url: path, ...form({ action: 'send_otp' }) });
    const mail = (ctx.mailer as MemoryMailer).lastTo('cleootp@example.com')!;
    const code = /code is (\d{6})/.exec(mail.text)![1]!;
    for (let i = 0; i < 4; i++) {
      page = await ctx.app.inject({
        method: 'POST',
        url: path,
        ...form({ action: 'verify_otp', code: '000000' === code ? '111111' : '000000' }),
      });
      expect(page.body).toContain('The code is not valid');
    }
    page = await ctx.app.inject({
      method: 'POST',
      url: path,
      ...form({ action: 'verify_otp', code: '000000' === code ? '111111' : '000000' }),
    });
    expect(page.body).toContain('Too many attempts');
    page = await ctx.app.inject({ method: 'POST', url: path, ...form({ action: 'verify_otp', code }) });
    expect(page.body).toContain('Too many attempts');
    await ctx.app.inject({ method: 'POST', url: path, ...form({ action: 'send_otp' }) });
    const code2 = /code is (\d{6})/.exec(
      (ctx.mailer as MemoryMailer).lastTo('cleootp@example.com')!.text,
    )![1]!;
    page = await ctx.app.inject({
      method: 'POST',
      url: path,
      ...form({ action: 'verify_otp', code: code2 }),
    });
    expect(page.statusCode).toBe(303);
    page = await ctx.app.inject({ method: 'GET', url: path });
    expect(page.body).toContain('Sign as Cleo Client');
    expect(byRole(await getReq(ctx, owner, r.contract_request_id), 'client').status).toBe('viewed');
  });
});

describe('reminders, magic inputs, correction', () => {
  it('reminds automatically on the clock and rate-limits manual reminders', async () => {
    const r = await send(ctx, owner, {
      template_id: templateId,
      participants: participants('rem'),
      reminder_interval_days: 2,
    });
    const mailer = ctx.mailer as MemoryMailer;
    const before = mailer.sent.filter((m) => m.to === 'cleorem@example.com').length;
    await advance(2 * DAY + 1000);
    await runDueContractTimers(ctx.deps);
    const reminders = mailer.sent.filter(
      (m) => m.to === 'cleorem@example.com' && m.subject.startsWith('Reminder'),
    );
    expect(mailer.sent.filter((m) => m.to === 'cleorem@example.com').length).toBe(before + 1);
    expect(reminders).toHaveLength(1);
    const manual = await call(ctx, owner)('POST', `/contracts/requests/${r.contract_request_id}/remind`, {});
    expect(manual.statusCode).toBe(429);
    expect(manual.json().detail).toBe('Please wait before sending another reminder');
    expect(Number(manual.headers['retry-after'])).toBeGreaterThan(0);
    await advance(3600_000);
    const ok = await call(ctx, owner)('POST', `/contracts/requests/${r.contract_request_id}/remind`, {});
    expect(ok.statusCode).toBe(200);
  });

  it('+autosign signs after the delay, +bounce bounces, a correction issues a new link', async () => {
    const r = await send(ctx, owner, {
      template_id: templateId,
      participants: [
        { role: 'client', name: 'Auto', email: 'auto+autosign@example.com' },
        { role: 'company', name: 'Bo', email: 'bo+bounce@example.com' },
      ],
    });
    ctx.clock.advance(6000);
    await runDueContractTimers(ctx.deps);
    let cur = await getReq(ctx, owner, r.contract_request_id);
    expect(byRole(cur, 'client').status).toBe('completed');
    expect(byRole(cur, 'company').status).toBe('bounced');
    const oldUrl = byRole(cur, 'company').signing_url!;
    const fixed = await call(ctx, owner)(
      'PATCH',
      `/contracts/requests/${r.contract_request_id}/participants/${byRole(cur, 'company').participant_id}`,
      {
        email: 'bo@example.com',
      },
    );
    const nameBefore = (byRole(cur, 'company') as unknown as { name: string }).name;
    cur = fixed.json();
    expect(byRole(cur, 'company').status).toBe('sent');
    // Only the email was sent: the name stays.
    expect((byRole(cur, 'company') as unknown as { name: string }).name).toBe(nameBefore);
    expect(byRole(cur, 'company').email).toBe('bo@example.com');
    expect(byRole(cur, 'company').signing_url).not.toBe(oldUrl);
    expect((await ctx.app.inject({ method: 'GET', url: new URL(oldUrl).pathname })).statusCode).toBe(404);
    expect(
      (await ctx.app.inject({ method: 'GET', url: new URL(byRole(cur, 'company').signing_url!).pathname }))
        .statusCode,
    ).toBe(200);
  });

  it('+autodecline declines after the delay with the sandbox reason and cancels the others', async () => {
    const r = await send(ctx, owner, {
      template_id: templateId,
      participants: [
        { role: 'client', name: 'Dee', email: 'dee+autodecline@example.com' },
        { role: 'company', name: 'Co', email: 'co@example.com' },
      ],
    });
    let cur = await getReq(ctx, owner, r.contract_request_id);
    expect(byRole(cur, 'client').status).not.toBe('declined');
    ctx.clock.advance(6000);
    await runDueContractTimers(ctx.deps);
    cur = await getReq(ctx, owner, r.contract_request_id);
    expect(cur.status).toBe('declined');
    expect(byRole(cur, 'client').status).toBe('declined');
    expect(byRole(cur, 'company').status).toBe('canceled');
  });

  it('expires on the clock and cancels the others', async () => {
    const r = await send(ctx, owner, {
      template_id: templateId,
      participants: participants('exp'),
      expires_in_days: 1,
    });
    await advance(DAY + 1000);
    await runDueContractTimers(ctx.deps);
    const cur = await getReq(ctx, owner, r.contract_request_id);
    expect(cur.status).toBe('expired');
    expect(cur.participants.every((p) => p.status === 'canceled')).toBe(true);
    expect(
      (await ctx.app.inject({ method: 'GET', url: new URL(byRole(r, 'client').signing_url!).pathname }))
        .statusCode,
    ).toBe(410);
  });
});

describe('production without an e-signing adapter', () => {
  it('answers 503 and stores nothing', async () => {
    const prod = await createTestApp({ env: PRODUCTION_ENV });
    try {
      const c = await createTestClient(prod, { productionAccess: true });
      const t = await createTemplate(prod, c);
      const res = await call(prod, c)('POST', '/contracts/send', {
        template_id: t.template_id,
        participants: participants('prod'),
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toBe('E-signing provider is not configured');
      const [n] = await prod.db.select({ n: count() }).from(contractRequests);
      expect(Number(n!.n)).toBe(0);
      const hook = await prod.app.inject({
        method: 'POST',
        url: '/api/v1/providers/esign/notifications',
        payload: {},
      });
      expect(hook.statusCode).toBe(503);
    } finally {
      await prod.close();
    }
  });
});
