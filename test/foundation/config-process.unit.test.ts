import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('start-up with a bad configuration', () => {
  it('refuses to start with a clear message and exit code 78', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const r = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['src/server.ts'], {
      cwd: root,
      env: { ...process.env, PORT: 'not-a-port', SVC_ENVIRONMENT: 'staging' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('Invalid configuration');
    expect(r.stderr).toContain('PORT must be an integer');
    expect(r.stderr).toContain('SVC_ENVIRONMENT must be one of sandbox, production');
  });
});
