import os from 'node:os';
import { hash, verify } from '@node-rs/argon2';

// argon2id (the library's default algorithm) with OWASP's baseline cost: m=19 MiB, t=2, p=1.
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const MIN_LENGTH = 8;

/**
 * argon2 calls running at once in this process. @node-rs/argon2's async API runs each call on
 * libuv's thread pool (4 threads by default, shared with file access and DNS lookups); one call
 * with p=1 keeps one core busy for its whole duration and holds its 19 MiB block. More calls at
 * once than cores cannot finish more of them per second: they only hold more memory, and take the
 * pool threads that file access needs. So at most one call per core runs; the rest wait in order.
 */
const MAX_RUNNING = Math.max(1, os.availableParallelism());
let running = 0;
const waiting: (() => void)[] = [];

async function bounded<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_RUNNING) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    // The slot passes straight to the next waiter, so `running` stays counted for it.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

export const hashPassword = (password: string): Promise<string> => bounded(() => hash(password, OPTIONS));

/** A hash of a random string, verified against when the account does not exist, so timing does not reveal it. */
let dummyHash: Promise<string> | null = null;

export async function verifyPassword(
  passwordHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (!passwordHash) {
    dummyHash ??= hashPassword('timing-equaliser-not-a-password');
    const dummy = await dummyHash;
    await bounded(() => verify(dummy, password)).catch(() => false);
    return false;
  }
  try {
    return await bounded(() => verify(passwordHash, password));
  } catch {
    return false;
  }
}

export const isPasswordLongEnough = (password: string): boolean => password.length >= MIN_LENGTH;
export const PASSWORD_MIN_LENGTH = MIN_LENGTH;
