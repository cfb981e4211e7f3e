/**
 * Every `svc` command answers `--help` (and `-h`) with its own usage and exit 0, before it reads the
 * configuration, opens a database or calls the network: `svc sandbox bootstrap --help` registers
 * nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commands } from '../../src/cli/commands';
import { runCli } from '../../src/cli/main';

const ROOT = path.resolve(import.meta.dirname, '../..');

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

async function runInProcess(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('svc <command> --help', () => {
  it('prints each command its usage and exits 0 without reading config or calling out', async () => {
    // A configuration that cannot load (production without its secrets): --help must not need it.
    vi.stubEnv('SVC_ENVIRONMENT', 'production');
    vi.stubEnv('DATABASE_URL', '');
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    expect(Object.keys(commands).length).toBeGreaterThan(10);
    for (const [name, cmd] of Object.entries(commands))
      for (const flag of ['--help', '-h']) {
        const res = await runInProcess([...name.split(' '), flag]);
        expect(res.code, `${name} ${flag}: ${res.err}`).toBe(0);
        expect(res.out.startsWith(`Usage: svc ${name}`), `${name} ${flag}`).toBe(true);
        expect(res.out).toContain(cmd.summary);
        expect(res.err).toBe('');
      }
    // Flags before --help do not matter; the words name the command.
    const late = await runInProcess(['admin', 'set-client', 'some-id', '--active', 'on', '--help']);
    expect(late.code).toBe(0);
    expect(late.out).toMatch(/^Usage: svc admin set-client <client_id>/);
    expect(fetchSpy).not.toHaveBeenCalled();
    // The same configuration without --help is a configuration error, so the above never loaded it.
    expect((await runInProcess(['migrate'])).code).toBe(78);
  });

  it('the overall usage still answers --help alone and names --help per command', async () => {
    const res = await runInProcess(['--help']);
    expect(res.code).toBe(0);
    expect(res.out).toContain('svc sandbox bootstrap');
    expect(res.out).toContain('svc <command> --help');
    expect((await runInProcess(['launch-rockets'])).code).toBe(64);
  });

  it('`svc sandbox bootstrap --help` as a real process: usage, exit 0, nothing written or registered', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-help-'));
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['bin/svc.mjs', 'sandbox', 'bootstrap', '--help'],
        {
          cwd: ROOT,
          // A service URL nothing listens on: a bootstrap that ran would fail, not exit 0.
          env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'silent' },
          timeout: 60_000,
        },
      );
      expect(stdout).toMatch(/^Usage: svc sandbox bootstrap \[--url URL\]/);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
