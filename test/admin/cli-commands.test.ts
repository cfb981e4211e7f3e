/** Every `svc admin ...` command in-process (argument parsing, errors, effects), over the test database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/command';
import { commands } from '../../src/cli/commands';
import { projects } from '../../src/db/schema/index';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { companyBody, eventsOf } from '../org/fixtures';

let ctx: TestContext;
let client: TestCaller;
let out: string[];
let cli: CliContext;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_SANDBOX_OPCO_ACTIVATION_SECONDS: '60' } });
  client = await createTestClient(ctx);
  out = [];
  cli = {
    config: ctx.config,
    database: ctx.deps.database,
    db: ctx.db,
    clock: ctx.clock,
    secrets: ctx.deps.secrets,
    log: ctx.deps.log,
    out: (line) => out.push(line),
  };
});
afterAll(() => ctx.close());

async function svc(...words: string[]): Promise<unknown> {
  out.length = 0;
  const name = Object.keys(commands).find(
    (n) => words.join(' ').startsWith(`${n} `) || words.join(' ') === n,
  )!;
  expect(name, words.join(' ')).toBeDefined();
  await commands[name]!.run(cli, words.slice(name.split(' ').length));
  return JSON.parse(out.filter((l) => !l.includes('already exists')).join('\n'));
}

const api = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers, payload: payload as object });

describe('svc admin commands', () => {
  it('set-client --feature switches one named area', async () => {
    const off = (await svc('admin', 'set-client', client.clientId, '--feature', 'contracts', 'off')) as {
      features: Record<string, boolean>;
    };
    expect(off.features).toMatchObject({ contracts: false, wallet_screening: true });
    const on = (await svc('admin', 'set-client', client.clientId, '--feature', 'contracts', 'on')) as {
      features: Record<string, boolean>;
    };
    expect(on.features.contracts).toBe(true);
    await expect(svc('admin', 'set-client', client.clientId, '--feature', 'teleport', 'on')).rejects.toThrow(
      /--feature must be one of/,
    );
    await expect(svc('admin', 'set-client', client.clientId, '--feature', 'contracts')).rejects.toThrow(
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
    expect(out[0]).toContain('already exists');
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
        client.clientId,
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
    await expect(svc('admin', 'set-client', client.clientId, '--kyc-links', 'maybe')).rejects.toThrow(
      /on or off/,
    );
    await expect(svc('admin', 'set-client', client.clientId)).rejects.toThrow(/at least one switch/);
    await expect(svc('admin', 'set-client', 'abc', '--active', 'on')).rejects.toThrow(/UUID/);
    await expect(
      svc('admin', 'set-client', '00000000-0000-4000-8000-000000000000', '--active', 'on'),
    ).rejects.toThrow(/Client not found/);
  });

  it('grant-visibility and revoke-visibility', async () => {
    expect(await svc('admin', 'grant-visibility', client.clientId, 'documents', 'poa')).toEqual({
      groups: ['poa', 'documents'],
    });
    expect(await svc('admin', 'grant-visibility', client.clientId, 'poa', 'aml_hits')).toEqual({
      groups: ['poa', 'aml_hits', 'documents'],
    });
    expect(await svc('admin', 'revoke-visibility', client.clientId, 'poa')).toEqual({
      groups: ['aml_hits', 'documents'],
    });
    await expect(svc('admin', 'grant-visibility', client.clientId, 'secrets')).rejects.toThrow(
      /unknown group/,
    );
    await expect(svc('admin', 'grant-visibility', client.clientId)).rejects.toThrow(/at least one group/);
  });

  it('freeze-project and unfreeze-project emit project.frozen_changed', async () => {
    const [p] = await ctx.db
      .insert(projects)
      .values({ clientId: client.clientId, projectName: 'P' })
      .returning();
    expect(await svc('admin', 'freeze-project', p!.id, '--reason', 'risk')).toMatchObject({
      is_frozen: true,
    });
    expect(await svc('admin', 'unfreeze-project', p!.id)).toMatchObject({ is_frozen: false });
    const evs = await eventsOf(ctx, client.clientId, 'project.frozen_changed');
    expect(evs.map((e) => e.data.current_is_frozen)).toEqual([true, false]);
  });

  it('approve-opco, reject-opco, deactivate-opco', async () => {
    const mk = async () => {
      const o = (await api('POST', '/opcos', client.headers, companyBody())).json();
      await api('POST', `/opcos/${o.opco_id}/submit`, client.headers);
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
