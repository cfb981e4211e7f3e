/**
 * What each remediation type issues and how its outcome moves the transaction on:
 * identity_reverification (a real KYC/KYB link through the kyc module; the verification's result or
 * the page submit), wallet_ownership (a section 3 ownership request for counterparty.wallet; a real
 * EIP-191 signature made here, expiry, revoke on review), source_of_funds with its optional
 * document (type checked by its bytes, size limit, download, cross-client 404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signEip191 } from '../../src/modules/screening/signatures.policy';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { createKycWorld, type KycWorld, simulate } from '../kyc/fixtures';
import { api, type Json, putPolicy, rule, submit } from './fixtures';

// Published development key (Hardhat/Anvil account #0): never holds real funds.
const KEY_0 = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDR_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const MAX_DOC = 2048;

let ctx: TestContext;
let w: KycWorld;
let owner: TestCaller;
let other: TestCaller;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_REMEDIATION_MAX_DOCUMENT_BYTES: String(MAX_DOC) } });
  call = api(ctx);
  w = await createKycWorld(ctx);
  owner = w.caller;
  other = await createTestClient(ctx);
});
afterAll(() => ctx.close());

const get = async (id: string) => (await call('GET', `/monitoring/transactions/${id}`, owner)).json();
const review = (id: string, body: Json) =>
  call('POST', `/monitoring/transactions/${id}/review`, owner, { note: 'Checked', ...body });
const page = (url: string) => ctx.app.inject({ method: 'GET', url: new URL(url).pathname });

function multipart(fields: Record<string, string>, file?: { name: string; type: string; content: Buffer }) {
  const boundary = '----remediation-test';
  const parts: Buffer[] = Object.entries(fields).map(([k, v]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
  );
  if (file)
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
      file.content,
      Buffer.from('\r\n'),
    );
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}
const post = (url: string, body: ReturnType<typeof multipart>) =>
  ctx.app.inject({ method: 'POST', url: new URL(url).pathname, ...body });

describe('identity_reverification', () => {
  it('a review issues a KYC link; the verification result submits the remediation', async () => {
    const t = await submit(ctx, owner, {
      client_reference: `sim_review_${Date.now()}`,
      customer: undefined,
      user_id: w.userId,
    });
    const res = await review(t.monitored_transaction_id, {
      decision: 'AWAITING_USER',
      remediation_type: 'identity_reverification',
    });
    expect(res.statusCode).toBe(200);
    const aw = res.json();
    expect(aw.remediation).toMatchObject({
      type: 'identity_reverification',
      verification_id: expect.any(String),
    });
    // The user's verification is under way through the kyc module's own use case.
    const user = (await call('GET', `/kyc/users/${w.userId}`, owner)).json();
    expect(user.kyc_status).toBe('pending');
    const html = (await page(aw.remediation_url)).body;
    expect(html).toContain(`${ctx.config.publicUrl}/verify/`);
    expect((await simulate(ctx, w, aw.remediation.verification_id, 'approved')).statusCode).toBe(200);
    expect(await get(t.monitored_transaction_id)).toMatchObject({
      decision: 'IN_REVIEW',
      remediation_status: 'submitted',
      remediation: {
        status: 'submitted',
        answers: { verification_id: aw.remediation.verification_id, verification_status: 'approved' },
      },
    });
  });

  it('a policy rule issues a KYB link for a business; the page submit moves it on too', async () => {
    await putPolicy(ctx, owner, {
      rules: [
        rule(
          'kyb',
          'amount_above',
          { amount: '9000', currency: 'EUR' },
          {
            action: 'require_user',
            remediation_type: 'identity_reverification',
          },
        ),
      ],
    });
    const t = await submit(ctx, owner, {
      amount: '9500',
      customer: undefined,
      business_customer_id: w.businessId,
    });
    expect(t.decision).toBe('AWAITING_USER');
    const vid = (t.remediation as Json).verification_id as string;
    expect(vid).toEqual(expect.any(String));
    const sub = await post(t.remediation_url!, multipart({ confirm: 'on' }));
    expect(sub.statusCode).toBe(200);
    expect(await get(t.monitored_transaction_id)).toMatchObject({
      decision: 'IN_REVIEW',
      remediation: { answers: { confirmed: 'true', verification_id: vid, verification_status: 'pending' } },
    });
    // Without a user or business customer the remediation cannot be issued: a reviewer decides.
    const ext = await submit(ctx, owner, { amount: '9500' });
    expect(ext.decision).toBe('IN_REVIEW');
    expect(ext.decision_reason).toContain(
      'identity_reverification needs a transaction with user_id or business_customer_id',
    );
    const bad = await review(ext.monitored_transaction_id, {
      decision: 'AWAITING_USER',
      remediation_type: 'identity_reverification',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['body', 'remediation_type']);
    await putPolicy(ctx, owner, { rules: [] });
  });
});

describe('wallet_ownership', () => {
  const walletTx = (address: string) => ({
    client_reference: `sim_review_${Math.random().toString(36).slice(2)}`,
    customer: undefined,
    user_id: w.userId,
    counterparty: { name: 'Self custody', wallet: { chain: 'ethereum', address } },
  });
  const awaitWallet = async (address: string) => {
    const t = await submit(ctx, owner, walletTx(address));
    const res = await review(t.monitored_transaction_id, {
      decision: 'AWAITING_USER',
      remediation_type: 'wallet_ownership',
    });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const ownership = async (id: string) =>
    (await call('GET', `/screening/wallet-ownership/requests/${id}`, owner)).json();

  it('opens an ownership request; a real signature verifies it and submits the remediation', async () => {
    const aw = await awaitWallet(ADDR_0);
    const rid = aw.remediation.ownership_request_id as string;
    const req = await ownership(rid);
    expect(req).toMatchObject({ status: 'pending', address: ADDR_0, user_id: w.userId, delivery: 'none' });
    const html = (await page(aw.remediation_url)).body;
    expect(html).toContain(req.proof_url);
    expect(html).not.toContain('<form');
    const proof = await call('POST', `/screening/wallet-ownership/requests/${rid}/proof`, owner, {
      method: 'message_signing',
      signature: signEip191(req.challenge.message, KEY_0),
    });
    expect(proof.json().status).toBe('verified');
    expect(await get(aw.monitored_transaction_id)).toMatchObject({
      decision: 'IN_REVIEW',
      remediation_status: 'submitted',
      remediation: {
        answers: {
          ownership_request_id: rid,
          ownership_status: 'verified',
          ownership_method: 'message_signing',
        },
      },
    });
  });

  it('an expired ownership request expires the remediation; a review revokes (cancels) it', async () => {
    const aw = await awaitWallet(`0x${'c'.repeat(40)}`);
    const rid = aw.remediation.ownership_request_id as string;
    const sim = await call('POST', `/sandbox/screening/wallet-ownership/requests/${rid}/simulate`, owner, {
      action: 'expire',
    });
    expect(sim.statusCode).toBe(200);
    expect(await get(aw.monitored_transaction_id)).toMatchObject({
      decision: 'IN_REVIEW',
      remediation_status: 'expired',
    });
    const again = await awaitWallet(`0x${'d'.repeat(40)}`);
    const ok = await review(again.monitored_transaction_id, { decision: 'DECLINED' });
    expect(ok.json()).toMatchObject({ decision: 'DECLINED', remediation_url: null });
    expect((await ownership(again.remediation.ownership_request_id)).status).toBe('canceled');
    // No wallet (or an invalid one): 422 at remediation_type.
    const t = await submit(ctx, owner, { client_reference: `sim_review_nowallet_${Date.now()}` });
    const bad = await review(t.monitored_transaction_id, {
      decision: 'AWAITING_USER',
      remediation_type: 'wallet_ownership',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].msg).toBe(
      'wallet_ownership needs counterparty.wallet with a valid address for its chain',
    );
  });
});

describe('source_of_funds document', () => {
  const awaitSof = () =>
    submit(ctx, owner, { client_reference: `sim_await_${Math.random().toString(36).slice(2)}` });
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');

  it('stores the optional document with the answers; the client downloads it, nobody else', async () => {
    const t = await awaitSof();
    expect(t.remediation).toMatchObject({ type: 'source_of_funds' });
    const res = await post(
      t.remediation_url!,
      multipart(
        { source: 'salary', explanation: 'Monthly salary' },
        { name: 'payslip.pdf', type: 'application/octet-stream', content: pdf },
      ),
    );
    expect(res.statusCode).toBe(200);
    const got = await get(t.monitored_transaction_id);
    expect(got.remediation.answers).toEqual({
      source: 'salary',
      explanation: 'Monthly salary',
      document: {
        document_id: expect.any(String),
        file_name: 'payslip.pdf',
        content_type: 'application/pdf',
        size: pdf.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    const url = `/monitoring/transactions/${t.monitored_transaction_id}/remediation/documents/${got.remediation.answers.document.document_id}`;
    const file = await call('GET', url, owner);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.rawPayload.equals(pdf)).toBe(true);
    const foreign = await call('GET', url, other);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'Monitored transaction not found' });
    const unknown = await call(
      'GET',
      `/monitoring/transactions/${t.monitored_transaction_id}/remediation/documents/00000000-0000-4000-8000-000000000000`,
      owner,
    );
    expect(unknown.json()).toEqual({ detail: 'Document not found' });
  });

  it('refuses a document of another type or over the size limit, storing nothing; no document is fine', async () => {
    const t = await awaitSof();
    const fields = { source: 'savings', explanation: 'Savings' };
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64, 0)]);
    const wrong = await post(
      t.remediation_url!,
      multipart(fields, { name: 'tool.pdf', type: 'application/pdf', content: exe }),
    );
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('Attachment type is not allowed');
    const big = await post(
      t.remediation_url!,
      multipart(fields, { name: 'big.txt', type: 'text/plain', content: Buffer.alloc(MAX_DOC + 1, 97) }),
    );
    expect(big.statusCode).toBe(422);
    expect(big.body).toContain(`at most ${MAX_DOC} bytes`);
    expect((await get(t.monitored_transaction_id)).remediation_status).toBe('pending');
    const plain = await post(t.remediation_url!, multipart(fields));
    expect(plain.statusCode).toBe(200);
    expect((await get(t.monitored_transaction_id)).remediation.answers).toEqual(fields);
  });
});
