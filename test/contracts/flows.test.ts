/** Contract flows: draft → active, merged roles, editing rules, delete rules, send from a flow with its payment step. */
import { describe, expect, it } from 'vitest';
import { paymentApp } from '../helpers/suites';
import { call, createTemplate, makePdf, simulate } from './fixtures';

const suite = paymentApp();

describe('contract flows', () => {
  it('merges roles, activates, refuses edits when active, sends with the payment step', async () => {
    const a = await createTemplate(suite.ctx, suite.w.caller);
    const addendum = await call(suite.ctx, suite.w.caller)('POST', '/contracts/templates', {
      name: 'Addendum',
      document: { file_name: 'addendum.pdf', content_base64: await makePdf(1, 'Addendum') },
      roles: [{ role: 'client', kind: 'signer' }],
      fields: [
        {
          field_id: 'add_sig',
          role: 'client',
          type: 'signature',
          page: 1,
          x: 0.1,
          y: 0.8,
          width: 0.3,
          height: 0.05,
        },
      ],
    });
    const api = call(suite.ctx, suite.w.caller);
    const created = await api('POST', '/contracts/workflows', {
      name: 'Onboarding',
      template_ids: [a.template_id, addendum.json().template_id],
      payment: { amount: '20.00', currency: 'EUR', project_id: suite.w.projectId, payer_role: 'client' },
    });
    expect(created.statusCode).toBe(201);
    const flow = created.json();
    expect(flow.status).toBe('draft');
    let res = await api('POST', '/contracts/send', {
      flow_id: flow.flow_id,
      participants: [{ role: 'client', name: 'C', email: 'c0@example.com' }],
    });
    expect(res.json().detail).toBe('Contract flow is not active');
    res = await api('POST', `/contracts/workflows/${flow.flow_id}/activate`);
    expect(res.json().status).toBe('active');
    expect(res.json().activated_at).toBeTruthy();
    res = await api('PATCH', `/contracts/workflows/${flow.flow_id}`, { name: 'x' });
    expect(res.json().detail).toBe('Contract flow is active and can no longer be edited');
    res = await api('DELETE', `/contracts/workflows/${flow.flow_id}`);
    expect(res.json().detail).toBe('Only draft contract flows can be deleted');
    const sent = await api('POST', '/contracts/send', {
      flow_id: flow.flow_id,
      participants: [
        { role: 'client', name: 'Cleo', email: 'cleo-flow@example.com', user_id: suite.w.userId },
        { role: 'company', name: 'Cory', email: 'cory-flow@example.com' },
      ],
    });
    expect(sent.statusCode, sent.body).toBe(201);
    const r = sent.json();
    expect(r.title).toBe('Onboarding');
    expect(r.participants).toHaveLength(2);
    expect(r.template_ids).toHaveLength(2);
    expect(r.payment).toMatchObject({ amount: '20.00', user_id: suite.w.userId });
    for (const role of ['client', 'company'])
      await simulate(
        suite.ctx,
        suite.w.caller,
        r.contract_request_id,
        'sign',
        r.participants.find((p: { role: string }) => p.role === role).participant_id,
      );
    const done = (await api('GET', `/contracts/requests/${r.contract_request_id}`)).json();
    expect(done.status).toBe('completed');
    expect(done.documents).toHaveLength(2);
    expect(done.payment.transaction_id).toBeTruthy();
  });

  it('conflicting kinds are 422; a flow with requests is archived, not deleted', async () => {
    const a = await createTemplate(suite.ctx, suite.w.caller);
    const viewer = await call(suite.ctx, suite.w.caller)('POST', '/contracts/templates', {
      name: 'Viewer copy',
      document: { file_name: 'v.pdf', content_base64: await makePdf(1) },
      roles: [{ role: 'client', kind: 'viewer' }],
      fields: [],
    });
    const res = await call(suite.ctx, suite.w.caller)('POST', '/contracts/workflows', {
      name: 'Bad',
      template_ids: [a.template_id, viewer.json().template_id],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'template_ids']);
    const draft = (
      await call(suite.ctx, suite.w.caller)('POST', '/contracts/workflows', {
        name: 'Tmp',
        template_ids: [a.template_id],
      })
    ).json();
    expect(
      (await call(suite.ctx, suite.w.caller)('DELETE', `/contracts/workflows/${draft.flow_id}`)).statusCode,
    ).toBe(204);
  });

  it("a request sent from a flow takes the flow's delivery, expiry and reminders unless the body says otherwise", async () => {
    const api = call(suite.ctx, suite.w.caller);
    const t = await createTemplate(suite.ctx, suite.w.caller);
    const flow = (
      await api('POST', '/contracts/workflows', {
        name: 'Quiet onboarding',
        template_ids: [t.template_id],
        expires_in_days: 10,
        reminder_interval_days: 3,
        delivery: 'none',
      })
    ).json();
    // A merchant renames the draft before activating it: the rename must not reset the defaults.
    await api('PATCH', `/contracts/workflows/${flow.flow_id}`, { name: 'Quiet onboarding v2' });
    await api('POST', `/contracts/workflows/${flow.flow_id}/activate`);
    const people = [
      { role: 'client', name: 'Cleo', email: 'cleo-quiet@example.com' },
      { role: 'company', name: 'Cory', email: 'cory-quiet@example.com' },
    ];
    const sentAt = suite.ctx.clock.now().getTime();
    const res = await api('POST', '/contracts/send', { flow_id: flow.flow_id, participants: people });
    expect(res.statusCode, res.body).toBe(201);
    const r = res.json();
    expect(r).toMatchObject({ delivery: 'none', reminder_interval_days: 3 });
    expect(new Date(r.expires_at).getTime() - sentAt).toBe(10 * 86_400_000);
    const explicit = await api('POST', '/contracts/send', {
      flow_id: flow.flow_id,
      participants: people,
      delivery: 'email',
      expires_in_days: 2,
      reminder_interval_days: null,
    });
    expect(explicit.json()).toMatchObject({ delivery: 'email', reminder_interval_days: null });
    expect(new Date(explicit.json().expires_at).getTime() - sentAt).toBe(2 * 86_400_000);
  });
});
