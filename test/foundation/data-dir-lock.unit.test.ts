/**
 * The embedded database's lock after a crash: a dead owner that was never reaped (zombie) and a pid
 * reused by another process both let the start proceed; a live owner still refuses.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/db/data-dir-lock';

const ROOT = path.resolve(import.meta.dirname, '../..');
const hasProc = fs.existsSync('/proc/self/stat');
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lock-'));
const statOf = (pid: number) => {
  const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: f[0]!, start: f[19]! };
};
const bootId = () => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

/** Resolves with the first line a child prints. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing (${out})`)));
  });
}

function track(child: ChildProcess) {
  children.push(child);
  return child;
}

/** A process that stays alive and never reaps its child, and that child's pid once it is a zombie. */
async function zombie(): Promise<number> {
  // The shell starts a short sleep, then becomes `sleep 60` (exec): nobody ever waits for the short one.
  const parent = track(
    spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  const pid = Number(await firstLine(parent));
  await expect.poll(() => statOf(pid).state, { timeout: 10_000, interval: 50 }).toBe('Z');
  return pid;
}

describe.skipIf(!hasProc)('data directory lock with /proc', () => {
  it('takes over a lock whose owner is a zombie (killed, not yet reaped)', async () => {
    const pid = await zombie();
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, '.svc.lock'),
      JSON.stringify({ pid, start: statOf(pid).start, boot: bootId() }),
    );
    lockDataDir(dir)();
    // The bare pid of older versions' lock files too.
    fs.writeFileSync(path.join(dir, '.svc.lock'), String(pid));
    const release = lockDataDir(dir);
    expect(JSON.parse(fs.readFileSync(path.join(dir, '.svc.lock'), 'utf8'))).toMatchObject({
      pid: process.pid,
    });
    release();
    expect(fs.existsSync(path.join(dir, '.svc.lock'))).toBe(false);
  });

  it('takes over a lock whose pid now belongs to another process (reused pid, or another boot)', async () => {
    const other = track(spawn('sleep', ['60'], { stdio: 'ignore' }));
    const pid = other.pid!;
    const dir = tempDir();
    const lock = path.join(dir, '.svc.lock');
    fs.writeFileSync(
      lock,
      JSON.stringify({ pid, start: String(Number(statOf(pid).start) - 1), boot: bootId() }),
    );
    lockDataDir(dir)();
    fs.writeFileSync(lock, JSON.stringify({ pid, start: statOf(pid).start, boot: 'another-boot' }));
    lockDataDir(dir)();
    // The same live process, same boot: refused.
    fs.writeFileSync(lock, JSON.stringify({ pid, start: statOf(pid).start, boot: bootId() }));
    expect(() => lockDataDir(dir)).toThrow(`is in use by process ${pid}`);
  });

  it('refuses while a live service process holds it', async () => {
    const dir = tempDir();
    const holder = track(
      spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '-e',
          `import('./src/db/data-dir-lock.ts').then((m) => { m.lockDataDir(${JSON.stringify(dir)}); console.log('locked'); setTimeout(() => {}, 60000); })`,
        ],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      ),
    );
    expect(await firstLine(holder)).toBe('locked');
    expect(() => lockDataDir(dir)).toThrow(`is in use by process ${holder.pid}`);
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    lockDataDir(dir)();
  });
});

describe('data directory lock without /proc (other systems)', () => {
  it('falls back to asking the kernel whether the pid exists', async () => {
    const other = track(spawn('sleep', ['60'], { stdio: 'ignore' }));
    const dir = tempDir();
    const noProc = { procRoot: path.join(dir, 'no-proc') };
    fs.writeFileSync(path.join(dir, '.svc.lock'), JSON.stringify({ pid: other.pid, start: '1', boot: 'x' }));
    expect(() => lockDataDir(dir, noProc)).toThrow(`is in use by process ${other.pid}`);
    other.kill('SIGKILL');
    await new Promise((r) => other.once('exit', r));
    lockDataDir(dir, noProc)();
  });
});
