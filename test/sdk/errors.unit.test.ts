import { SvcApiError } from '@svc/sdk';
import { describe, expect, it } from 'vitest';

describe('SvcApiError', () => {
  it('names the missing permission and the roles that have it on a 403', async () => {
    const body = {
      detail: 'Insufficient permissions for this action',
      required_permission: 'payments.write',
      roles_with_permission: ['owner', 'operations'],
    };
    const res = new Response(JSON.stringify(body), { status: 403, headers: { 'x-request-id': 'req-1' } });
    const err = await SvcApiError.fromResponse(res, 'POST');
    expect(err.message).toContain('Insufficient permissions for this action');
    expect(err.message).toContain('(needs permission payments.write; roles with it: owner, operations)');
    expect(err.requiredPermission).toBe('payments.write');
    expect(err.rolesWithPermission).toEqual(['owner', 'operations']);
  });

  it('adds nothing to other answers', async () => {
    const res = new Response(JSON.stringify({ detail: 'Project is frozen by admin' }), { status: 403 });
    const err = await SvcApiError.fromResponse(res, 'POST');
    expect(err.message).toMatch(/answered 403: Project is frozen by admin$/);
    expect(err.requiredPermission).toBeNull();
    expect(err.rolesWithPermission).toEqual([]);
  });
});
