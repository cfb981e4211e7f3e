/** The generated OpenAPI document passes Redocly's lint (recommended rules) with no errors. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';

const root = path.resolve(import.meta.dirname, '../..');
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx.close());

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

describe('OpenAPI document', () => {
  it('passes Redocly lint with no errors', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(ctx.app.swagger(), null, 2));
    const run = await promisify(execFile)(
      path.join(root, 'node_modules/.bin/redocly'),
      ['lint', file, '--format=json', '--config', path.join(import.meta.dirname, 'redocly.yaml')],
      {
        cwd: dir,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NO_COLOR: '1',
        },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((err: { stdout: string; stderr: string }) => err);
    fs.rmSync(dir, { recursive: true, force: true });
    const start = run.stdout.indexOf('{');
    expect(start, `redocly printed no report:\n${run.stderr}`).toBeGreaterThanOrEqual(0);
    const report = JSON.parse(run.stdout.slice(start)) as { totals: { errors: number }; problems: Problem[] };
    const errors = report.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 120_000);
});
