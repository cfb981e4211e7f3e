/**
 * Exclusive lock on the embedded database directory: PGlite is single-process and two writers
 * would corrupt it. The lock file names its owner: pid, the process's start time and the boot id
 * (Linux /proc). A lock whose owner is gone (crash, SIGKILL) is taken over at once, so a
 * supervisor's restart right after a crash always starts. "Gone" means, where /proc exists: no such
 * process, a zombie (dead but not reaped, which in a container without an init can last for good),
 * a process with another start time (the pid was reused) or a lock written during another boot.
 * Without /proc (macOS, Windows) only the pid is checked (`kill(pid, 0)`).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); null without /proc. */
  start: string | null;
  /** /proc/sys/kernel/random/boot_id; null without /proc. */
  boot: string | null;
}

export interface LockOptions {
  /** Where procfs is mounted (tests point it elsewhere to run the fallback). */
  procRoot?: string;
}

interface ProcStat {
  state: string;
  start: string;
}

/** State (field 3) and start time (field 22) of /proc/<pid>/stat; null when unreadable. */
function readStat(procRoot: string, pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(procRoot, String(pid), 'stat'), 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  return state && start ? { state, start } : null;
}

function readBootId(procRoot: string): string | null {
  try {
    return fs.readFileSync(path.join(procRoot, 'sys/kernel/random/boot_id'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function procAvailable(procRoot: string): boolean {
  return readStat(procRoot, process.pid) !== null;
}

/** This process, as written into the lock file. */
export function ownIdentity(opts: LockOptions = {}): ProcessIdentity {
  const procRoot = opts.procRoot ?? '/proc';
  return {
    pid: process.pid,
    start: readStat(procRoot, process.pid)?.start ?? null,
    boot: readBootId(procRoot),
  };
}

/** Reads a lock file: the JSON identity, or the bare pid older versions wrote. */
export function parseLockFile(text: string): ProcessIdentity | null {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed), start: null, boot: null };
  try {
    const v = JSON.parse(trimmed) as Partial<ProcessIdentity>;
    if (!Number.isInteger(v.pid) || (v.pid as number) <= 0) return null;
    return {
      pid: v.pid as number,
      start: typeof v.start === 'string' ? v.start : null,
      boot: typeof v.boot === 'string' ? v.boot : null,
    };
  } catch {
    return null;
  }
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process a lock file names still runs (and is the same process that wrote it). */
export function ownerAlive(owner: ProcessIdentity, opts: LockOptions = {}): boolean {
  const procRoot = opts.procRoot ?? '/proc';
  if (!procAvailable(procRoot)) return signalable(owner.pid);
  if (owner.boot !== null && owner.boot !== readBootId(procRoot)) return false; // written before a reboot
  const stat = readStat(procRoot, owner.pid);
  // Unreadable although /proc works: no such process, or one hidden from us (hidepid): ask the kernel.
  if (!stat) return signalable(owner.pid);
  if (stat.state === 'Z' || stat.state === 'X') return false; // dead, not yet reaped
  return owner.start === null || owner.start === stat.start; // another start time: the pid was reused
}

export function lockDataDir(dir: string, opts: LockOptions = {}): () => void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, '.svc.lock');
  const me = ownIdentity(opts);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx');
      fs.writeSync(fd, JSON.stringify(me));
      fs.closeSync(fd);
      return () => {
        try {
          if (parseLockFile(fs.readFileSync(file, 'utf8'))?.pid === process.pid) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = parseLockFile(readOrEmpty(file));
      if (owner && owner.pid !== process.pid && ownerAlive(owner, opts)) {
        throw new Error(
          `The embedded database in ${dir} is in use by process ${owner.pid}. Stop it, or set DATABASE_URL to use PostgreSQL.`,
        );
      }
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not lock ${dir}`);
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return ''; // removed between our open and this read: the next attempt creates it
  }
}
