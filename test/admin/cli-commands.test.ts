/** Every `svc admin ...` command in-process (argument parsing, errors, effects), over the test database. */
import { beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../../src/db/schema/index';
import { type CliHarness, cliHarness } from '../helpers/cli';
import { clientApp } from '../helpers/suites';
import { companyBody, eventsOf } from '../org/fixtures';

const s = clientApp({ app: { env: { SVC_SANDBOX_OPCO_ACTIVATION_SECONDS: '60' } } });
let cli: CliHarness;
beforeAll(() => {
  cli = cliHarness(s.ctx);
});

async function svc(...words: string[]): Promise<unknown> {
  const out = await cli.run(...words);
  return JSON.parse(out.filter((l) => !l.includes('already exists')).join('\n'));
}

const api = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  s.ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers, payload: payload as object });

describe('svc admin commands', () => {
  it('set-client --feature switches one named area', async () => {
    const off = (await svc('admin', 'set-client', s.owner.clientId, '--feature', 'contracts', 'off')) as {
      features: Record<string, boolean>;
    };
    expect(off.features).toMatchObject({ contracts: false, wallet_screening: true });
    const on = (await svc('admin', 'set-client', s.owner.clientId, '--feature', 'contracts', 'on')) as {
      features: Record<string, boolean>;
    };
    expect(on.features.contracts).toBe(true);
    await expect(svc('admin', 'set-client', s.owner.clientId, '--feature', 'teleport', 'on')).rejects.toThrow(
      /--feature must be one of/,
    );
    await expect(svc('admin', 'set-client', s.owner.clientId, '--feature', 'contracts')).rejects.toThrow(
      /needs on or off/,
    );
  });

  it('create-staff validates and is idempotent', async () => {
    expect(
      await svc('admin', 'create-staff', '--email', 'a@ops.example.com', '--password', 'password-1'),
    ).toMatchObject({
      email: 'a@ops.example.com',
    });
    await svc('admin', 'create-staff', '--email', 'A@ops.example.com', '--password', 'password-2');
    expect(cli.out[0]).toContain('already exists');
    await expect(svc('admin', 'create-staff', '--email', 'b@ops.example.com')).rejects.toThrow(/required/);
    await expect(
      svc('admin', 'create-staff', '--email', 'b@ops.example.com', '--password', 'short'),
    ).rejects.toThrow(/at least 8/);
    await expect(
      svc('admin', 'create-staff', '--email', 'nope', '--password', 'long-enough'),
    ).rejects.toThrow(/email/);
  });

  it('set-client switches every flag and rejects bad input', async () => {
    expect(
      await svc(
        'admin',
        'set-client',
        s.owner.clientId,
        '--production-access',
        'on',
        '--payment-links',
        'off',
        '--kyc-links',
        'off',
        '--active',
        'on',
      ),
    ).toMatchObject({
      production_access_enabled: true,
      payment_links_enabled: false,
      kyc_links_enabled: false,
      is_active: true,
    });
    await expect(svc('admin', 'set-client', s.owner.clientId, '--kyc-links', 'maybe')).rejects.toThrow(
      /on or off/,
    );
    await expect(svc('admin', 'set-client', s.owner.clientId)).rejects.toThrow(/at least one switch/);
    await expect(svc('admin', 'set-client', 'abc', '--active', 'on')).rejects.toThrow(/UUID/);
    await expect(
      svc('admin', 'set-client', '00000000-0000-4000-8000-000000000000', '--active', 'on'),
    ).rejects.toThrow(/Client not found/);
  });

  it('grant-visibility and revoke-visibility', async () => {
    expect(await svc('admin', 'grant-visibility', s.owner.clientId, 'documents', 'poa')).toEqual({
      groups: ['poa', 'documents'],
    });
    expect(await svc('admin', 'grant-visibility', s.owner.clientId, 'poa', 'aml_hits')).toEqual({
      groups: ['poa', 'aml_hits', 'documents'],
    });
    expect(await svc('admin', 'revoke-visibility', s.owner.clientId, 'poa')).toEqual({
      groups: ['aml_hits', 'documents'],
    });
    await expect(svc('admin', 'grant-visibility', s.owner.clientId, 'secrets')).rejects.toThrow(
      /unknown group/,
    );
    await expect(svc('admin', 'grant-visibility', s.owner.clientId)).rejects.toThrow(/at least one group/);
  });

  it('freeze-project and unfreeze-project emit project.frozen_changed', async () => {
    const [p] = await s.ctx.db
      .insert(projects)
      .values({ clientId: s.owner.clientId, projectName: 'P' })
      .returning();
    expect(await svc('admin', 'freeze-project', p!.id, '--reason', 'risk')).toMatchObject({
      is_frozen: true,
    });
    expect(await svc('admin', 'unfreeze-project', p!.id)).toMatchObject({ is_frozen: false });
    const evs = await eventsOf(s.ctx, s.owner.clientId, 'project.frozen_changed');
    expect(evs.map((e) => e.data.current_is_frozen)).toEqual([true, false]);
  });

  it('approve-opco, reject-opco, deactivate-opco', async () => {
    const mk = async () => {
      const o = (await api('POST', '/opcos', s.owner.headers, companyBody())).json();
      await api('POST', `/opcos/${o.opco_id}/submit`, s.owner.headers);
      return o.opco_id as string;
    };
    const a = await mk();
    const approved = (await svc('admin', 'approve-opco', a)) as { status: string; sub_tpp_id: string };
    expect(approved.status).toBe('activated');
    expect(approved.sub_tpp_id).toMatch(/^stpp_/);
    expect(await svc('admin', 'deactivate-opco', a, '--reason', 'closed')).toMatchObject({
      status: 'deactivated',
      status_reason: 'closed',
    });
    const r = await mk();
    expect(await svc('admin', 'reject-opco', r, '--reason', 'no')).toMatchObject({ status: 'rejected' });
    await expect(svc('admin', 'approve-opco', r)).rejects.toThrow(/cannot be approved/);
  });

  it('registration on, off and default', async () => {
    expect(await svc('admin', 'registration', 'off')).toEqual({ registration_enabled: false });
    expect(await svc('admin', 'registration', 'on')).toEqual({ registration_enabled: true });
    expect(await svc('admin', 'registration', 'default')).toEqual({ registration_enabled: true });
    await expect(svc('admin', 'registration', 'sometimes')).rejects.toThrow();
  });
});
