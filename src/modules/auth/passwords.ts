import { hash, verify } from '@node-rs/argon2';

// argon2id (the library's default algorithm) with OWASP's baseline cost: m=19 MiB, t=2, p=1.
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const MIN_LENGTH = 8;

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

/** A hash of a random string, verified against when the account does not exist, so timing does not reveal it. */
let dummyHash: Promise<string> | null = null;

export async function verifyPassword(
  passwordHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (!passwordHash) {
    dummyHash ??= hashPassword('timing-equaliser-not-a-password');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

export const isPasswordLongEnough = (password: string): boolean => password.length >= MIN_LENGTH;
export const PASSWORD_MIN_LENGTH = MIN_LENGTH;
