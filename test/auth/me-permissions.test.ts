/** GET /auth/me names the token's permissions from the permission enum, and the SDK types them. */
import type { Permission } from '@svc/sdk';
import { afterAll, beforeAll, expect, expectTypeOf, it } from 'vitest';
import { PERMISSIONS, permissionsForRole } from '../../src/modules/auth/team/permissions.policy';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx?.close());

it("answers the token's permissions, each a member of the documented enum", async () => {
  const dev = await createTestClient(ctx, { role: 'developer' });
  const me = (await ctx.app.inject({ url: '/api/v1/auth/me', headers: dev.headers })).json();
  expect(me.permissions).toEqual([...permissionsForRole('developer')].sort());
  const doc = (await ctx.app.inject({ url: '/api/v1/openapi.json' })).json();
  const ref = doc.paths['/api/v1/auth/me'].get.responses['200'].content['application/json'].schema.$ref;
  const schema = ref ? doc.components.schemas[ref.split('/').pop()] : undefined;
  expect([...schema.properties.permissions.items.enum].sort()).toEqual([...PERMISSIONS].sort());
});

it('the SDK exports Permission as the union of the names', () => {
  expectTypeOf<'payments.read'>().toExtend<Permission>();
  expectTypeOf<Permission>().toEqualTypeOf<(typeof PERMISSIONS)[number]>();
});
