/**
 * The permission matrix as a Markdown table (docs/guides/roles-permissions.md), with the routes that use each
 * permission. Routes are collected from the real app (buildApp's onRoute), so the table cannot
 * drift from the code. Run: `npm run docs:permissions`.
 */
import type { RouteOptions } from 'fastify';
import { PERMISSION_MATRIX, PERMISSIONS, type Permission, ROLES } from './permissions.policy';

export interface RouteAccess {
  method: string;
  /** The registered URL, e.g. /api/v1/auth/api-credentials/:credential_id/disable */
  url: string;
  permission: Permission;
  dashboardOnly: boolean;
}

/** One entry per method of every registered /api/v1 route that declares a permission. */
export function routeAccessOf(routes: RouteOptions[]): RouteAccess[] {
  return routes.flatMap((r) => {
    const cfg = (r.config ?? {}) as { permission?: Permission; dashboardOnly?: boolean };
    if (!cfg.permission || !r.url.startsWith('/api/v1/')) return [];
    const methods = (Array.isArray(r.method) ? r.method : [r.method]).filter((m) => m !== 'HEAD');
    return methods.map((method) => ({
      method,
      url: r.url,
      permission: cfg.permission!,
      dashboardOnly: cfg.dashboardOnly === true,
    }));
  });
}

/** /api/v1/x/:id -> /x/{id} (the spec's way of writing paths). */
export const specPath = (url: string): string =>
  url.replace(/^\/api\/v1/, '').replace(/:([A-Za-z_]+)/g, '{$1}');

export function permissionsMarkdown(routes: RouteAccess[]): string {
  const header = `| Permission | ${ROLES.join(' | ')} | Description | Endpoints (under /api/v1; * = dashboard token only) |`;
  const rule = `|---|${ROLES.map(() => ':-:').join('|')}|---|---|`;
  const rows = PERMISSIONS.map((p) => {
    const [roles, description] = PERMISSION_MATRIX[p];
    const marks = ROLES.map((r) => ((roles as readonly string[]).includes(r) ? '✓' : ''));
    const used = routes
      .filter((r) => r.permission === p)
      .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
      .map((r) => `\`${r.method} ${specPath(r.url)}\`${r.dashboardOnly ? '*' : ''}`);
    return `| \`${p}\` | ${marks.join(' | ')} | ${description} | ${used.join('<br>') || '(no route yet)'} |`;
  });
  return [header, rule, ...rows].join('\n');
}
