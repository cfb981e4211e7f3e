/**
 * TRP through the service (sandbox deployment with SVC_TRAVEL_RULE_PROVIDER=trp): TRP's identity
 * request on a client's own inquiry URL (`GET <inquiry URL path>/identity`: the client's VASP name and
 * LEI, our certificate) and at the origin's root as TRISA's client asks (`GET /identity?id=<token>&t=i`,
 * the inquiry URL's query), 404 for a missing, shared, unknown or forged token and for a client
 * without an LEI; an inquiry posted with a query naming another token is 404; an
 * inquiry on a client's own URL reaches only that client (another client's wallet is refused to the
 * originator as an unknown beneficiary); an outbound transfer naming the beneficiary's travel address
 * goes to the URL it decodes to, only at a directory VASP of that origin (else 400, nothing stored).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { screeningWallets } from '../../src/db/schema/index';
import type { TrpNetwork } from '../../src/providers/travel-rule/trp/adapter';
import { inquiryJson, toIvms } from '../../src/providers/travel-rule/trp/mapping';
import { decodeTravelAddress, encodeTravelAddress } from '../../src/providers/travel-rule/trp/travel-address';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { travelRuleClient } from './fixtures';

const LEI_PEER = '529900T8BM49AURSDO55';
let ctx: TestContext;
let owner: TestCaller;
let bare: TestCaller;
let net: TrpNetwork;

beforeAll(async () => {
  ctx = await createTestApp({
    env: {
      SVC_TRAVEL_RULE_PROVIDER: 'trp',
      SVC_TRP_PUBLIC_URL: 'https://trp.us.example',
      SVC_TRP_DIRECTORY: JSON.stringify([
        {
          vasp_id: 'peer',
          name: 'Peer',
          country: 'DE',
          lei: LEI_PEER,
          inquiry_url: 'https://trp.peer.example/inquiry',
          addresses: [],
        },
      ]),
      SVC_TRP_ASSETS: 'ETH:ethereum:18:X9J9K872S',
      SVC_TRP_CALLBACK_SECRET: 'k'.repeat(40),
    },
  });
  owner = await travelRuleClient(ctx);
  bare = await createTestClient(ctx);
  net = ctx.deps.providers.travelRule as unknown as TrpNetwork;
}, 120_000);
afterAll(() => ctx?.close());

const path = (url: string) => new URL(url).pathname;
const get = (url: string) => ctx.app.inject({ method: 'GET', url });

describe('GET <inquiry URL>/identity', () => {
  it("answers the client's VASP name and LEI on its own URL, x509 null without a certificate", async () => {
    const res = await get(`${path(net.inquiryUrl('peer', owner.clientId))}/identity`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'Acme VASP', lei: '5493001KJTIIGC8Y1R12', x509: null });
  });

  it('404 for a shared URL, a forged or unknown one, and a client without an LEI', async () => {
    const own = path(net.inquiryUrl('peer', owner.clientId));
    for (const url of [
      `${path(net.inquiryUrl('peer'))}/identity`,
      `${own.slice(0, -2)}AA/identity`,
      `${own.replace(owner.clientId, bare.clientId)}/identity`,
      `${path(net.inquiryUrl('peer', bare.clientId))}/identity`,
      '/api/v1/providers/travel-rule/trp/notifications/nonsense/identity',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it('an inquiry posted to a forged URL is 404, as the identity is', async () => {
    const own = path(net.inquiryUrl('peer', owner.clientId));
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${own.slice(0, -2)}AA`,
      headers: {
        'content-type': 'application/json',
        'api-version': '3.2.1',
        'request-identifier': randomUUID(),
      },
      payload: {},
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not Found' });
  });
});

describe('GET /identity at the root, as TRISA asks (path replaced by /identity, query kept)', () => {
  /** What TRISA's client `Identity` requests for an address: same origin, path `/identity`, same query. */
  const trisaIdentity = (address: string) => {
    const u = new URL(address);
    u.pathname = '/identity';
    return `${u.pathname}${u.search}`;
  };

  it("answers the client's identity from the token in its inquiry URL's query, as the path form does", async () => {
    const own = net.inquiryUrl('peer', owner.clientId);
    expect(trisaIdentity(own)).toMatch(/^\/identity\?id=i\.peer\.[^&]+&t=i$/);
    const root = await get(trisaIdentity(own));
    expect(root.statusCode).toBe(200);
    expect(root.json()).toEqual({ name: 'Acme VASP', lei: '5493001KJTIIGC8Y1R12', x509: null });
    // From the travel address too (TRISA decodes it, then replaces the path).
    const viaAddress = await get(
      trisaIdentity(decodeTravelAddress(net.travelAddress('peer', owner.clientId))),
    );
    expect(viaAddress.json()).toEqual(root.json());
    const pathForm = await get(`${path(own)}/identity${new URL(own).search}`);
    expect(pathForm.json()).toEqual(root.json());
  });

  it("404 without a token, with a forged one, a shared URL's, another client's, or a client without an LEI", async () => {
    const own = new URL(net.inquiryUrl('peer', owner.clientId)).searchParams.get('id')!;
    const other = new URL(net.inquiryUrl('peer', bare.clientId)).searchParams.get('id')!;
    const shared = path(net.inquiryUrl('peer')).split('/').at(-1)!;
    for (const url of [
      '/identity',
      '/identity?t=i',
      `/identity?id=${own.slice(0, -2)}AA&t=i`,
      `/identity?id=${own.replace(owner.clientId, bare.clientId)}&t=i`,
      `/identity?id=${shared}&t=i`,
      `/identity?id=${other}&t=i`,
      `/identity?id=${own}&id=${own}&t=i`,
      `/identity?id=${'x'.repeat(5000)}`,
      // The path form with a query naming another token.
      `${path(net.inquiryUrl('peer', owner.clientId))}/identity?id=${other}`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url.slice(0, 120)).toBe(404);
      expect(res.json()).toEqual({ detail: 'Not Found' });
    }
  });
});

describe("an inquiry on a client's own URL", () => {
  const headers = {
    'content-type': 'application/json',
    'api-version': '3.2.1',
  };
  const inquiry = (wallet: string, callback: string) =>
    inquiryJson({
      asset: { dti: 'X9J9K872S' },
      amount: '1500000000000000000',
      callback,
      IVMS101: toIvms({
        originator: {
          type: 'natural',
          first_name: 'Otto',
          last_name: 'Orlov',
          account_number: '0xabc',
          customer_id: 'c-1',
        },
        beneficiary: { type: 'natural', first_name: 'Bob', last_name: 'Receiver', account_number: wallet },
        originatorVasp: { name: 'Peer', lei: LEI_PEER, country: 'DE' },
      }),
    });
  // Posted to the URL as issued, query included (TRISA's `Inquiry` keeps it and sets t=i).
  const post = (url: string, body: string) =>
    ctx.app.inject({
      method: 'POST',
      url: `${path(url)}${new URL(url).search}`,
      headers: { ...headers, 'request-identifier': crypto.randomUUID() },
      payload: body,
    });
  const wallet = `0x${'7'.repeat(38)}aa`;

  beforeAll(async () => {
    // The owner holds the wallet (a screening wallet of its own).
    await ctx.db
      .insert(screeningWallets)
      .values({ clientId: owner.clientId, chain: 'ethereum', address: wallet, normalizedAddress: wallet });
  });

  it("reaches the client when it holds the wallet; another client's URL refuses it as unknown", async () => {
    const mine = await post(
      net.inquiryUrl('peer', owner.clientId),
      inquiry(wallet, 'https://trp.peer.example/cb/1'),
    );
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toEqual({ received: true, applied: true });
    const theirs = await post(
      net.inquiryUrl('peer', bare.clientId),
      inquiry(wallet, 'https://trp.peer.example/cb/2'),
    );
    expect(theirs.json()).toEqual({ received: true, applied: false });
    const jobs = rowsOf<{ dedupe_key: string }>(
      await ctx.db.execute(sql`select dedupe_key from jobs where kind = 'travel_rule.answer_inbound'`),
    );
    expect(jobs.map((j) => j.dedupe_key)).toEqual(['https://trp.peer.example/cb/2']);
  });

  it("a query naming another token than the path's is a wrong URL: 404, nothing taken", async () => {
    const other = new URL(net.inquiryUrl('peer', bare.clientId)).searchParams.get('id')!;
    const own = new URL(net.inquiryUrl('peer', owner.clientId));
    own.searchParams.set('id', other);
    const res = await post(own.href, inquiry(wallet, 'https://trp.peer.example/cb/3'));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not Found' });
  });
});

describe("an outbound transfer naming the beneficiary's travel address", () => {
  const TRANSFER = {
    asset: 'ETH',
    chain: 'ethereum',
    amount: '1.5',
    fiat_value: { amount: '2500.00', currency: 'EUR' },
    originator: {
      type: 'natural',
      first_name: 'Alice',
      last_name: 'Sender',
      account_number: `0x${'a'.repeat(40)}`,
      address: { street: '1 Main St', city: 'Berlin', postal_code: '10115', country: 'DE' },
    },
    beneficiary: {
      type: 'natural',
      first_name: 'Bob',
      last_name: 'Receiver',
      account_number: `0x${'b'.repeat(40)}`,
    },
  };
  let n = 0;
  const create = (travel_address: string, extra: Record<string, unknown> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/v1/travel-rule/transfers',
      headers: owner.headers,
      payload: {
        ...TRANSFER,
        counterparty_wallet: { address: `0x${'b'.repeat(40)}`, travel_address },
        client_reference: `ta-${++n}`,
        ...extra,
      },
    });
  // The peer's travel address for one of its customers: its inquiry origin, a path of its own.
  const peerTa = encodeTravelAddress('https://trp.peer.example/inquiry/customer-42');

  it('goes to the URL it decodes to, at the directory VASP of that origin, and is kept on the transfer', async () => {
    const posted: string[] = [];
    const client = (net as unknown as { client: { post: (...a: unknown[]) => Promise<string> } }).client;
    const original = client.post;
    client.post = async (_kind, url) => {
      posted.push(url as string);
      return '';
    };
    try {
      const res = await create(peerTa);
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({
        status: 'awaiting_counterparty',
        beneficiary_vasp: { vasp_id: 'peer' },
        counterparty_wallet: { travel_address: peerTa },
      });
      expect(posted).toEqual(['https://trp.peer.example/inquiry/customer-42?t=i']);
    } finally {
      client.post = original;
    }
  });

  it('400 with the reason for a bad one, one of a VASP outside the directory, or another VASP than beneficiary_vasp_id', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      [
        peerTa.slice(2),
        {},
        'counterparty_wallet.travel_address is not a TRP travel address: it does not start with "ta"',
      ],
      [
        encodeTravelAddress('https://169.254.169.254/latest'),
        {},
        'counterparty_wallet.travel_address names 169.254.169.254, which is not the origin of any VASP of our TRP directory',
      ],
      [
        encodeTravelAddress('https://trp.peer.example:8443/inquiry'),
        {},
        'counterparty_wallet.travel_address names trp.peer.example:8443, which is not the origin of any VASP of our TRP directory',
      ],
    ];
    for (const [ta, extra, detail] of cases) {
      const res = await create(ta, extra);
      expect(res.statusCode, ta).toBe(400);
      expect(res.json()).toEqual({ detail });
    }
    const count = rowsOf<{ n: number }>(
      await ctx.db.execute(
        sql`select count(*)::int as n from travel_rule_transfers where client_id = ${owner.clientId}::uuid`,
      ),
    );
    expect(count[0]!.n).toBe(2); // the inbound one above and the accepted send: nothing stored for a 400
  });
});
