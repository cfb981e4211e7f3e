/**
 * The common access contract of every client route (in the spirit of unkey's runCommonRouteTests):
 * it iterates whatever /api/v1 routes are registered with a `permission`, so it covers new routes
 * as features land. For each route:
 *   - no token, a garbage token, a token signed with another key, a token of the other
 *     environment: 401 with `WWW-Authenticate: Bearer`;
 *   - an API-credential token with an empty custom permission set: 403 (insufficient permissions,
 *     or "requires a dashboard account token" on dashboard-only routes);
 *   - a dashboard token of every role the matrix does not grant the permission: 403;
 *   - on dashboard-only routes, an owner API-credential token: 403.
 * Path parameters are random UUIDs; bodies are irrelevant (auth runs before validation).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RouteOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { endpointBlocks, readBlock } from '../../src/cli/docs-blocks';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import {
  PERMISSION_MATRIX,
  PERMISSIONS,
  ROLES,
  type Role,
} from '../../src/modules/auth/team/permissions.policy';
import {
  permissionsMarkdown,
  type RouteAccess,
  routeAccessOf,
  specPath,
} from '../../src/modules/auth/team/permissions-doc.service';
import { M } from '../../src/shared/messages';
import { createTestApp } from '../helpers/app';
import { createTestClient } from '../helpers/clients';

const ctx = await createTestApp();
const seen: RouteOptions[] = [];
const app = await buildApp(ctx.deps, { onRoute: (r) => seen.push(r) });
await app.ready();
afterAll(async () => {
  await app.close();
  await ctx.close();
});

// Wildcard routes (none today) would need a concrete path to call.
const routes = routeAccessOf(seen).filter((r) => !r.url.includes('*'));

const owner = await createTestClient(ctx, { role: 'owner' });
const noPermissions = await createTestClient(ctx, {
  apiToken: true,
  permissions: [],
  clientId: owner.clientId,
});
const ownerApi = await createTestClient(ctx, { apiToken: true, role: 'owner', clientId: owner.clientId });
const byRole = {} as Record<Role, { headers: Record<string, string> }>;
for (const role of ROLES) byRole[role] = await createTestClient(ctx, { role, clientId: owner.clientId });

const wrongKey = await signToken(
  new TextEncoder().encode('another-signing-key-that-is-long-enough-000000'),
  {
    sub: owner.clientId,
    type: 'client_access',
    actor_type: 'client_user',
    role: 'owner',
    account_id: owner.accountId,
    environment: 'sandbox',
  },
  1800,
  ctx.clock.now(),
);
const otherEnvironment = await signToken(
  ctx.deps.secrets.jwtKey,
  {
    sub: owner.clientId,
    type: 'client_access',
    actor_type: 'client_user',
    role: 'owner',
    account_id: owner.accountId,
    environment: 'production',
  },
  1800,
  ctx.clock.now(),
);

function call(route: RouteAccess, headers: Record<string, string>) {
  const url = route.url.replace(/:[A-Za-z_]+/g, () => randomUUID());
  return app.inject({ method: route.method as 'GET', url, headers });
}

function expect401(res: Awaited<ReturnType<typeof call>>) {
  expect(res.statusCode).toBe(401);
  // RFC 6750: plain `Bearer` without a token, otherwise `invalid_token` with the reason.
  expect(res.headers['www-authenticate']).toMatch(
    /^Bearer( error="invalid_token", error_description="[^"]+")?$/,
  );
  expect(typeof res.json().detail).toBe('string');
}

describe('route access contract', () => {
  it('finds the guarded routes', () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.map((r) => `${r.method} ${r.url}`)).toContain('GET /api/v1/auth/api-credentials');
  });

  it('publishes each permission in the OpenAPI document and the Markdown matrix', async () => {
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    const table = permissionsMarkdown(routes);
    for (const r of routes) {
      const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op?.description, `${r.method} ${path}`).toContain(`Permission \`${r.permission}\``);
      expect(op.description, `${r.method} ${path}`).toContain(`scope="${r.permission}"`);
      if (r.dashboardOnly) expect(op.description).toContain('dashboard');
      expect(table).toContain(`\`${r.method} ${specPath(r.url)}\``);
    }
  });

  it("the guide's permission table is the generated one and lists every permission the code defines", () => {
    const guide = readFileSync(
      path.resolve(import.meta.dirname, '../../docs/guides/roles-permissions.md'),
      'utf8',
    );
    const rows = guide.split('\n').filter((l) => /^\| `[a-z_.]+` \|/.test(l));
    const listed = rows.map((l) => /^\| `([a-z_.]+)`/.exec(l)![1]);
    expect(listed).toEqual(PERMISSIONS);
    expect(listed).toEqual(expect.arrayContaining(['travel_rule.read', 'travel_rule.write']));
    // Row for row what `npm run docs:permissions` writes (regenerate it after changing the matrix).
    const generated = permissionsMarkdown(routeAccessOf(seen)).split('\n');
    expect(rows).toEqual(generated.filter((l) => l.startsWith('| `')));
    expect(readBlock(guide, 'permissions')).toBe(permissionsMarkdown(routeAccessOf(seen)));
  });

  it("each area guide's endpoint table is the generated one (npm run docs:permissions)", () => {
    for (const [guide, table] of endpointBlocks(routeAccessOf(seen))) {
      const doc = readFileSync(path.resolve(import.meta.dirname, `../../docs/guides/${guide}.md`), 'utf8');
      expect(readBlock(doc, `endpoints:${guide}`), guide).toBe(table);
    }
  });

  describe.each(routes.map((r) => [`${r.method} ${r.url}`, r] as const))('%s', (_name, route) => {
    it('401 without a usable token', async () => {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer not-a-jwt' },
        { authorization: 'Basic dXNlcjpwYXNz' },
        { authorization: `Bearer ${wrongKey.token}` },
        { authorization: `Bearer ${otherEnvironment.token}` },
      ];
      for (const headers of attempts) {
        const res = await call(route, headers);
        expect401(res);
        expect(res.json().detail).toBe(M.couldNotValidate);
      }
    });

    it('403 for a token without the permission', async () => {
      const res = await call(route, noPermissions.headers);
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe(
        route.dashboardOnly ? M.dashboardTokenRequired : M.insufficientPermissions,
      );

      // RFC 6750 section 3.1: the missing permission, named where a client can act on it.
      const scopeHint = `Bearer error="insufficient_scope", scope="${route.permission}"`;
      if (!route.dashboardOnly) expect(res.headers['www-authenticate']).toBe(scopeHint);
      const allowed = PERMISSION_MATRIX[route.permission][0] as readonly Role[];
      for (const role of ROLES.filter((r) => !allowed.includes(r))) {
        const denied = await call(route, byRole[role].headers);
        expect(denied.statusCode, `role ${role}`).toBe(403);
        expect(denied.json().detail).toBe(M.insufficientPermissions);
        expect(denied.headers['www-authenticate'], `role ${role}`).toBe(scopeHint);
        // The body names the permission and the roles that have it (what to ask the owner for).
        expect(denied.json()).toMatchObject({
          required_permission: route.permission,
          roles_with_permission: [...allowed],
        });
      }
      if (route.dashboardOnly) {
        const api = await call(route, ownerApi.headers);
        expect(api.statusCode).toBe(403);
        expect(api.json().detail).toBe(M.dashboardTokenRequired);
      }
    });
  });
});
