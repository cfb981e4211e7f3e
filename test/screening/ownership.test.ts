/**
 * Wallet ownership: every row of the status table, real signatures made here with known test keys
 * (EIP-191 secp256k1 and solana ed25519: valid, wrong key, wrong message), attempts, Satoshi test
 * through the signed chain-observer route, expiry by the due timers, cancel, errors, cross-client 404s.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signEip191 } from '../../src/modules/screening/signatures.policy';
import { createTestApp, type MemoryMailer, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { createKycWorld } from '../kyc/fixtures';
import { api, eventsOf, runDueTimers } from './fixtures';

// Published development keys (Hardhat/Anvil accounts #0 and #1): never hold real funds.
const KEY_0 = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDR_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const KEY_1 = '59c6995e998f97a5a0044966f0945389dc9c86dae88c7a8412f4603b6b78690d';
const SOL_SEED = new Uint8Array(32).fill(7);
const SOL_ADDR = base58.encode(ed25519.getPublicKey(SOL_SEED));

let ctx: TestContext;
let call: ReturnType<typeof api>;
let caller: TestCaller;
let other: TestCaller;
let userId: string;
let businessId: string;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_WALLET_OWNERSHIP_MAX_ATTEMPTS: '2' } });
  call = api(ctx);
  const world = await createKycWorld(ctx);
  caller = world.caller;
  userId = world.userId;
  businessId = world.businessId;
  other = await createTestClient(ctx);
});
afterAll(() => ctx.close());

const create = (body: Record<string, unknown>) =>
  call('POST', '/screening/wallet-ownership/requests', caller.headers, { user_id: userId, ...body });
const proof = (id: string, body: Record<string, unknown>) =>
  call('POST', `/screening/wallet-ownership/requests/${id}/proof`, caller.headers, body);
const wallet = async (id: string) => (await call('GET', `/screening/wallets/${id}`, caller.headers)).json();
const evmAddr = (n: number) => `0x${n.toString(16).padStart(40, 'd')}`;

describe('message signing', () => {
  it('EIP-191: a valid signature verifies; wrong key and wrong message are 400 and cost attempts', async () => {
    const res = await create({ chain: 'ethereum', address: ADDR_0, client_reference: 'own-1' });
    expect(res.statusCode).toBe(201);
    const r = res.json();
    expect(r).toMatchObject({
      status: 'pending',
      methods: ['message_signing', 'satoshi_test'],
      attempts_remaining: 2,
      delivery: 'none',
      user_id: userId,
    });
    expect(r.proof_url).toMatch(/\/wallet-proof\/[A-Za-z0-9_-]{43}$/);
    expect(r.challenge.message).toMatch(
      new RegExp(
        `^Acme [0-9a-f]+ asks you to prove control of ${ADDR_0} on ethereum\\. Nonce: ${r.challenge.nonce}\\. Issued: `,
      ),
    );
    expect((await wallet(r.wallet_id)).ownership_status).toBe('pending');

    const wrongKey = await proof(r.request_id, {
      method: 'message_signing',
      signature: signEip191(r.challenge.message, KEY_1),
    });
    expect(wrongKey.statusCode).toBe(400);
    expect(wrongKey.json()).toEqual({ detail: 'Invalid signature' });
    const after = (
      await call('GET', `/screening/wallet-ownership/requests/${r.request_id}`, caller.headers)
    ).json();
    expect(after.attempts_remaining).toBe(1);

    const ok = await proof(r.request_id, {
      method: 'message_signing',
      signature: signEip191(r.challenge.message, KEY_0),
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'verified', method: 'message_signing' });
    const w = await wallet(r.wallet_id);
    expect(w).toMatchObject({ ownership_status: 'verified', ownership_method: 'message_signing' });
    expect(w.ownership_verified_at).not.toBeNull();
    const ev = (await eventsOf(ctx, caller.clientId, 'screening.wallet_ownership.status_changed')).filter(
      (e) => e.request_id === r.request_id,
    );
    expect(ev.map((e) => [e.previous_status, e.current_status])).toEqual([
      [null, 'pending'],
      ['pending', 'verified'],
    ]);
    const terminal = await proof(r.request_id, { method: 'message_signing', signature: '0x00' });
    expect(terminal.json()).toEqual({ detail: "Wallet ownership request is in terminal status 'verified'" });
  });

  it('attempts exhausted (wrong message, then wrong key) fails the request and the wallet', async () => {
    const r = (await create({ chain: 'polygon', address: ADDR_0.toLowerCase() })).json();
    const wrongMessage = signEip191(`${r.challenge.message}!`, KEY_0);
    expect(
      (await proof(r.request_id, { method: 'message_signing', signature: wrongMessage })).statusCode,
    ).toBe(400);
    const last = await proof(r.request_id, {
      method: 'message_signing',
      signature: signEip191(r.challenge.message, KEY_1),
    });
    expect(last.json()).toEqual({ detail: 'Invalid signature' });
    const got = (
      await call('GET', `/screening/wallet-ownership/requests/${r.request_id}`, caller.headers)
    ).json();
    expect(got).toMatchObject({
      status: 'failed',
      attempts_remaining: 0,
      failure_reason: 'Too many invalid signatures',
    });
    expect((await wallet(r.wallet_id)).ownership_status).toBe('failed');
  });

  it('solana: ed25519 over the UTF-8 message (valid, wrong key, wrong message)', async () => {
    const r = (
      await create({
        chain: 'solana',
        address: SOL_ADDR,
        business_customer_id: businessId,
        user_id: undefined,
      })
    ).json();
    const msg = new TextEncoder().encode(r.challenge.message);
    const wrongKey = base58.encode(ed25519.sign(msg, new Uint8Array(32).fill(8)));
    expect((await proof(r.request_id, { method: 'message_signing', signature: wrongKey })).statusCode).toBe(
      400,
    );
    const wrongMsg = base58.encode(ed25519.sign(new TextEncoder().encode('hello'), SOL_SEED));
    const bad = await proof(r.request_id, { method: 'message_signing', signature: wrongMsg });
    expect(bad.statusCode).toBe(400);
    // Two wrong attempts used them up.
    const r2 = (
      await create({
        chain: 'solana',
        address: SOL_ADDR,
        business_customer_id: businessId,
        user_id: undefined,
      })
    ).json();
    const good = base58.encode(ed25519.sign(new TextEncoder().encode(r2.challenge.message), SOL_SEED));
    const ok = await proof(r2.request_id, { method: 'message_signing', signature: good });
    expect(ok.json()).toMatchObject({ status: 'verified', business_customer_id: businessId });
  });

  it('message signing on a chain without it is 400; a method not requested is 400', async () => {
    const btc = await create({
      chain: 'bitcoin',
      address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      methods: ['message_signing'],
    });
    expect(btc.json()).toEqual({ detail: "Method 'message_signing' is not supported for chain 'bitcoin'" });
    const def = (
      await create({ chain: 'bitcoin', address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' })
    ).json();
    expect(def.methods).toEqual(['satoshi_test']);
    const notAllowed = await proof(def.request_id, {
      method: 'self_declaration',
      declarant_name: 'Jane Roe',
    });
    expect(notAllowed.json()).toEqual({
      detail: "Method 'self_declaration' is not allowed for this request",
    });
    const bad = await create({ chain: 'tron', address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv9' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0]).toMatchObject({
      loc: ['body', 'address'],
      msg: "Invalid address for chain 'tron'",
    });
    const both = await create({ chain: 'ethereum', address: evmAddr(1), business_customer_id: businessId });
    expect(both.statusCode).toBe(422);
  });
});

describe('self declaration, Satoshi test, expiry, cancel', () => {
  it('delivery email sends the proof link to the customer', async () => {
    const r = (await create({ chain: 'ethereum', address: evmAddr(11), delivery: 'email' })).json();
    const mail = (ctx.mailer as MemoryMailer).sent.find((m) => m.text.includes(r.proof_url));
    expect(mail).toBeDefined();
    expect(mail!.to).toMatch(/^jane-/);
  });

  it('self declaration verifies with assurance low', async () => {
    const r = (
      await create({ chain: 'ethereum', address: evmAddr(2), methods: ['self_declaration'] })
    ).json();
    const ok = await proof(r.request_id, { method: 'self_declaration', declarant_name: 'Jane Roe' });
    expect(ok.json()).toMatchObject({ status: 'verified', method: 'self_declaration', assurance: 'low' });
    expect(ok.json().declarant_sanctions_matches).toEqual([]);
    expect(ok.json().declarant_sanctions_screening).toBe('screened');
  });

  it("self declaration: the declarant's name is screened against the sanctions lists, the hit reported", async () => {
    const r = (
      await create({ chain: 'ethereum', address: evmAddr(12), methods: ['self_declaration'] })
    ).json();
    expect(r.declarant_sanctions_matches).toBeNull();
    expect(r.declarant_sanctions_screening).toBeNull();
    const ok = (
      await proof(r.request_id, { method: 'self_declaration', declarant_name: 'Olga Sanctioned' })
    ).json();
    expect(ok).toMatchObject({ status: 'verified', assurance: 'low' });
    expect(ok.declarant_sanctions_matches).toEqual([
      {
        list: 'Sandbox sanctions list',
        matched_name: 'Olga Sanctioned',
        match_score: 100,
        entry_id: null,
        entry_name: null,
        screened_name: 'Olga Sanctioned',
      },
    ]);
  });

  it('satoshi_test: verifying with deposit details; the exact deposit verifies', async () => {
    const r = (await create({ chain: 'ethereum', address: evmAddr(3) })).json();
    const v = (await proof(r.request_id, { method: 'satoshi_test' })).json();
    expect(v.status).toBe('verifying');
    const amount = Number(v.satoshi_test.amount);
    expect(amount).toBeGreaterThanOrEqual(0.00001);
    expect(amount).toBeLessThanOrEqual(0.00099);
    expect(v.satoshi_test).toMatchObject({ asset: 'ETH' });
    expect(v.satoshi_test.deposit_address).toMatch(/^0x[0-9a-f]{40}$/);
    const sim = `/sandbox/screening/wallet-ownership/requests/${r.request_id}/simulate`;
    const done = await call('POST', sim, caller.headers, { action: 'deposit_received' });
    expect(done.json()).toMatchObject({ status: 'verified', method: 'satoshi_test' });
    expect((await wallet(r.wallet_id)).ownership_method).toBe('satoshi_test');
    expect((await call('POST', sim, caller.headers, { action: 'deposit_received' })).statusCode).toBe(400);
  });

  it('satoshi_test: a wrong amount fails; a deposit window that closes fails', async () => {
    const r = (await create({ chain: 'bitcoin', address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' })).json();
    const pendingSim = await call(
      'POST',
      `/sandbox/screening/wallet-ownership/requests/${r.request_id}/simulate`,
      caller.headers,
      {
        action: 'deposit_received',
      },
    );
    expect(pendingSim.statusCode).toBe(400);
    await proof(r.request_id, { method: 'satoshi_test' });
    const wrong = await call(
      'POST',
      `/sandbox/screening/wallet-ownership/requests/${r.request_id}/simulate`,
      caller.headers,
      {
        action: 'deposit_wrong_amount',
      },
    );
    expect(wrong.json()).toMatchObject({
      status: 'failed',
      failure_reason: 'Deposit amount does not match the Satoshi test',
    });
    expect((await wallet(r.wallet_id)).ownership_status).toBe('failed');

    const r2 = (await create({ chain: 'ethereum', address: evmAddr(4) })).json();
    const v = (await proof(r2.request_id, { method: 'satoshi_test' })).json();
    ctx.clock.advance(new Date(v.satoshi_test.expires_at).getTime() - ctx.clock.now().getTime() + 1000);
    await runDueTimers(ctx);
    caller = { ...(await createTestClient(ctx, { clientId: caller.clientId })) };
    const got = (
      await call('GET', `/screening/wallet-ownership/requests/${r2.request_id}`, caller.headers)
    ).json();
    expect(got).toMatchObject({
      status: 'failed',
      failure_reason: 'The deposit window closed before a matching deposit arrived',
    });
  });

  it('pending and verifying expire at expires_at; the wallet goes back to its previous status', async () => {
    const addr = evmAddr(5);
    const first = (await create({ chain: 'ethereum', address: addr, methods: ['self_declaration'] })).json();
    await proof(first.request_id, { method: 'self_declaration', declarant_name: 'Jane Roe' });
    const r = (await create({ chain: 'ethereum', address: addr, expires_in_seconds: 300 })).json();
    expect((await wallet(r.wallet_id)).ownership_status).toBe('pending');
    const v = (await create({ chain: 'ethereum', address: evmAddr(6), expires_in_seconds: 300 })).json();
    await proof(v.request_id, { method: 'satoshi_test' });
    ctx.clock.advance(301_000);
    await runDueTimers(ctx);
    const a = (
      await call('GET', `/screening/wallet-ownership/requests/${r.request_id}`, caller.headers)
    ).json();
    expect(a.status).toBe('expired');
    expect((await wallet(r.wallet_id)).ownership_status).toBe('verified');
    const b = (
      await call('GET', `/screening/wallet-ownership/requests/${v.request_id}`, caller.headers)
    ).json();
    expect(b.status).toBe('expired');
    expect((await wallet(v.wallet_id)).ownership_status).toBe('unverified');
    const sim = await call(
      'POST',
      `/sandbox/screening/wallet-ownership/requests/${v.request_id}/simulate`,
      caller.headers,
      {
        action: 'expire',
      },
    );
    expect(sim.json()).toEqual({ detail: "Wallet ownership request is in terminal status 'expired'" });
  });

  it('a second request for a wallet with one open is 409 naming the open one; once it ended it goes', async () => {
    const first = (await create({ chain: 'ethereum', address: evmAddr(31) })).json();
    // The same wallet, its address spelled in another case.
    const second = await create({
      chain: 'ethereum',
      address: evmAddr(31).toUpperCase().replace('0X', '0x'),
    });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual({
      detail: `Wallet ownership request ${first.request_id} for this wallet is still open (status 'pending'): complete or cancel it before asking again`,
    });
    await call(
      'POST',
      `/sandbox/screening/wallet-ownership/requests/${first.request_id}/simulate`,
      caller.headers,
      { action: 'expire' },
    );
    expect((await create({ chain: 'ethereum', address: evmAddr(31) })).statusCode).toBe(201);
  });

  it('cancel (pending, verifying) and the simulate expire action', async () => {
    const p = (await create({ chain: 'ethereum', address: evmAddr(7) })).json();
    const c = await call(
      'POST',
      `/screening/wallet-ownership/requests/${p.request_id}/cancel`,
      caller.headers,
    );
    expect(c.json().status).toBe('canceled');
    expect((await wallet(p.wallet_id)).ownership_status).toBe('unverified');
    const v = (await create({ chain: 'ethereum', address: evmAddr(8) })).json();
    await proof(v.request_id, { method: 'satoshi_test' });
    expect(
      (
        await call('POST', `/screening/wallet-ownership/requests/${v.request_id}/cancel`, caller.headers)
      ).json().status,
    ).toBe('canceled');
    const again = await call(
      'POST',
      `/screening/wallet-ownership/requests/${v.request_id}/cancel`,
      caller.headers,
    );
    expect(again.json()).toEqual({ detail: "Wallet ownership request is in terminal status 'canceled'" });
    const e = (await create({ chain: 'ethereum', address: evmAddr(9) })).json();
    const sim = await call(
      'POST',
      `/sandbox/screening/wallet-ownership/requests/${e.request_id}/simulate`,
      caller.headers,
      {
        action: 'expire',
      },
    );
    expect(sim.json().status).toBe('expired');
  });

  it('lists with status, chain and q; another client gets 404', async () => {
    const list = (
      await call('GET', '/screening/wallet-ownership/requests?status=canceled&chain=ethereum', caller.headers)
    ).json();
    expect(list.pagination.total).toBe(2);
    const q = (
      await call('GET', `/screening/wallet-ownership/requests?q=${SOL_ADDR.slice(5, 15)}`, caller.headers)
    ).json();
    expect(q.ownership_requests).toHaveLength(2);
    const any = list.ownership_requests[0].request_id;
    other = await createTestClient(ctx, { clientId: other.clientId });
    const foreign = await call('GET', `/screening/wallet-ownership/requests/${any}`, other.headers);
    expect(foreign.json()).toEqual({ detail: 'Wallet ownership request not found' });
    expect(
      (await call('POST', `/screening/wallet-ownership/requests/${any}/cancel`, other.headers)).statusCode,
    ).toBe(404);
    expect(
      (
        await call('POST', `/screening/wallet-ownership/requests/${any}/proof`, other.headers, {
          method: 'satoshi_test',
        })
      ).statusCode,
    ).toBe(404);
  });
});
