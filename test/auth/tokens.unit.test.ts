/**
 * The HS256 verification done with node:crypto (sessions/tokens.service.ts) accepts and refuses what jose's jwtVerify
 * (algorithms HS256, required sub, exp, jti) does, with the expired hint; only padding is refused too.
 */
import { createHmac } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signToken, verifyTokenWithReason } from '../../src/modules/auth/sessions/tokens.service';

const key = new TextEncoder().encode('unit-test-secret-which-is-long-enough-0123456789');
const now = new Date('2026-01-15T10:00:00Z');
const nowS = Math.floor(now.getTime() / 1000);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function forge(header: unknown, payload: unknown, secret: Uint8Array = key): string {
  const signingInput = `${typeof header === 'string' ? header : b64(header)}.${typeof payload === 'string' ? payload : b64(payload)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

async function jose(token: string): Promise<'ok' | 'expired' | 'invalid'> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      currentDate: now,
      requiredClaims: ['sub', 'exp', 'jti'],
    });
    return typeof payload.type === 'string' && typeof payload.environment === 'string' ? 'ok' : 'invalid';
  } catch (err) {
    return err instanceof errors.JWTExpired ? 'expired' : 'invalid';
  }
}

async function ours(token: string): Promise<'ok' | 'expired' | 'invalid'> {
  const r = await verifyTokenWithReason(key, token, now);
  return r.claims ? 'ok' : r.expired ? 'expired' : 'invalid';
}

const claims = { sub: 'c1', jti: 'j1', type: 'client_access', environment: 'sandbox', iat: nowS };
const hs = { alg: 'HS256', typ: 'JWT' };

describe('HS256 verification', () => {
  it('agrees with jose on valid, expired, tampered and malformed tokens', async () => {
    const signed = (
      await signToken(key, { ...claims, actor_type: 'client_user', role: 'owner' } as never, 60, now)
    ).token;
    const cases: Record<string, string> = {
      'signed by signToken': signed,
      'signed by jose': await new SignJWT({ type: 't', environment: 'sandbox' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('s')
        .setJti('j')
        .setExpirationTime(nowS + 10)
        .sign(key),
      valid: forge(hs, { ...claims, exp: nowS + 1 }),
      'expires now': forge(hs, { ...claims, exp: nowS }),
      expired: forge(hs, { ...claims, exp: nowS - 100 }),
      'expired and badly signed': forge(hs, { ...claims, exp: nowS - 100 }, new Uint8Array(32)),
      'other key': forge(hs, { ...claims, exp: nowS + 60 }, new Uint8Array(32)),
      'alg none': `${b64({ alg: 'none' })}.${b64({ ...claims, exp: nowS + 60 })}.`,
      'alg HS512': forge({ alg: 'HS512' }, { ...claims, exp: nowS + 60 }),
      crit: forge({ ...hs, crit: ['exp'] }, { ...claims, exp: nowS + 60 }),
      'b64 false': forge({ ...hs, b64: false, crit: ['b64'] }, { ...claims, exp: nowS + 60 }),
      'no jti': forge(hs, { ...claims, jti: undefined, exp: nowS + 60 }),
      'no sub': forge(hs, { ...claims, sub: undefined, exp: nowS + 60 }),
      'no exp': forge(hs, claims),
      'string exp': forge(hs, { ...claims, exp: String(nowS + 60) }),
      'nbf in the future': forge(hs, { ...claims, exp: nowS + 60, nbf: nowS + 5 }),
      'nbf now': forge(hs, { ...claims, exp: nowS + 60, nbf: nowS }),
      'string iat': forge(hs, { ...claims, exp: nowS + 60, iat: 'x' }),
      'array claims': forge(hs, [1, 2]),
      'header not JSON': forge('bm90IGpzb24', { ...claims, exp: nowS + 60 }),
      'no type claim': forge(hs, { ...claims, type: undefined, exp: nowS + 60 }),
      'two parts': signed.split('.').slice(0, 2).join('.'),
      'four parts': `${signed}.x`,
      'signature flipped': `${signed.slice(0, -2)}${signed.endsWith('AA') ? 'BB' : 'AA'}`,
      empty: '',
    };
    const results = await Promise.all(
      Object.entries(cases).map(async ([name, t]) => ({ name, jose: await jose(t), ours: await ours(t) })),
    );
    for (const r of results)
      expect({ name: r.name, result: r.ours }).toEqual({ name: r.name, result: r.jose });
    expect(results.find((r) => r.name === 'valid')?.ours).toBe('ok');
    // Stricter than jose in one way: base64url padding (not in a compact JWS) is refused.
    expect(await ours(`${signed}=`)).toBe('invalid');
    expect(results.find((r) => r.name === 'expired')?.ours).toBe('expired');
  });
});

describe('HS256 signing', () => {
  it('is byte for byte what jose SignJWT makes, and jose verifies it', async () => {
    const c = {
      sub: 'client-1',
      type: 'client_access' as const,
      actor_type: 'client_user' as const,
      role: 'owner' as const,
      account_id: 'acc-1',
      sid: 'ses-1',
      environment: 'sandbox' as const,
    };
    const ours = await signToken(key, c, 1800, now);
    const { sub, ...rest } = c;
    const theirs = await new SignJWT({ ...rest })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(sub)
      .setJti(ours.jti)
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + 1800)
      .sign(key);
    expect(ours.token).toBe(theirs);
    expect(ours.expiresAt.getTime()).toBe((nowS + 1800) * 1000);
    expect(await jose(ours.token)).toBe('ok');
  });
});
