/**
 * TRP travel addresses (docs/vendors/trp.md, "Travel addresses") on the documents' own example
 * (trisacrypto/trisa pkg/openvasp/traddr traddr_test.go; docs.trpscout.com), the directory entries
 * that name a counterparty by its travel address, and the inquiry URLs we issue: shared per
 * counterparty or made for one client, each also shown as a travel address, the client ones
 * answering TRP's identity request.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { loadTrpConfig } from '../../../src/providers/travel-rule/trp/config';
import { createTrp } from '../../../src/providers/travel-rule/trp/index';
import { inquiryJson, toIvms } from '../../../src/providers/travel-rule/trp/mapping';
import {
  decodeTravelAddress,
  encodeTravelAddress,
  TravelAddressError,
} from '../../../src/providers/travel-rule/trp/travel-address';
import { captureLogger } from '../../helpers/log-capture';

// The documents' example pair.
const DOC_URL = 'beneficiary.com/x/12345?t=i';
const DOC_TA = 'ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv';
const LEI_PEER = '529900T8BM49AURSDO55';
const CLIENT = '3f1b7a52-58a1-4b8e-9b38-2b8d1a3f4c55';

/** A travel address of any text, with a good checksum (to build ones the format refuses otherwise). */
const ta = (raw: string) => `ta${createBase58check(sha256).encode(new TextEncoder().encode(raw))}`;

describe('travel address format (the documents example)', () => {
  it('decodes and encodes the documented pair', () => {
    expect(decodeTravelAddress(DOC_TA)).toBe(`https://${DOC_URL}`);
    expect(encodeTravelAddress(`https://${DOC_URL}`)).toBe(DOC_TA);
    // t=i is added when the URL lacks it; the scheme is dropped (https implied).
    expect(encodeTravelAddress('https://beneficiary.com/x/12345')).toBe(DOC_TA);
  });

  // Every example of trisacrypto/trisa pkg/openvasp/traddr/traddr_test.go (commit dbfd1ae113d8b56aec086225340f360c434a08e3):
  // TestDecodeURL and TestDecoding (travel address -> the https URL), TestMake (URL -> travel address).
  // Before review 2, URLs without a path came back with a `/` added and were encoded with it (another
  // address than the documents'), and several query parameters were encoded unsorted.
  const DECODED: [string, string][] = [
    ['ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv', 'https://beneficiary.com/x/12345?t=i'],
    ['ta226rAKyTmMxzsmkda5U2Vhw1', 'https://localhost?t=i'],
    ['ta42ZEr7rdvSpGnVvnttK1bWYQU4f4f', 'https://192.22.123.12?t=i'],
    [
      'taGw1e4cjuujwyHBV51aspbLBUbcDhebW7ss8iF6dLEn19WfyQZt6HaUTStSE2YcadkFG',
      'https://beneficiary.com/x/12345?color=red&foo=bar&t=i',
    ],
    ['ta6HcFqwh5y4D3r7z66JyKqvSAekyXnXc2KwdXSUec', 'https://trisa.beneficiary.com?t=i'],
    ['ta4uMjxqDq4t7nefCdrm4ssCTewVbvBLzmUnVcYe4SXqGafPTPewG', 'https://trisa.beneficiary.com/x/12345?t=i'],
    ['ta3dgYSWEoAJPfU2Wdr2hvQmXem4dHbfKuBvkbKGfBrzdb61C', 'https://trisa.beneficiary.com:4443?t=i'],
    ['ta21hULpYqwBirCCHHU13UMT1hhy3syAAPXJem8cJ', 'https://beneficiary.com:8000?t=i'],
    [
      'ta2wijJqYhcj5zriQyV5SVWybf71AyHEXgRCa7WWJ8XQk9g1NodLEHbKoHdg',
      'https://trisa.beneficiary.com:4443/x/12345?t=i',
    ],
    ['takLQA9MSCjHr3kkHh4fnC5rWNbrySUJhTwQHZsML2anv95kkqe', 'https://beneficiary.com:8000/x/12345?t=i'],
    ['taEi7uRVTrhfqLUzffcu7AqS17UJXUjMqhAdZ6p', 'https://envoy.local/x/12345?t=i'],
    ['ta7pwsXgswc9soxfnDgsBbWpDVsEwXy4G4hhPEN8WkrmaB', 'https://envoy.local:8100/x/12345?t=i'],
    ['taAFKaTJj4goXwwCKCmdNPtG8zeze5BeZiK', 'https://envoy.local:8100?t=i'],
    ['ta3dgYSWEoAJPfU2Wdr2hvQmXem4dHbfKyYrisbBTnXjL2Kub', 'https://trisa.beneficiary.com:8000?t=i'],
    [
      'ta2wijJqYhcj5zriQyV5SVWybf71AyHEXjdvtJEwNdQYykjqYkVT6dUXAfTf',
      'https://trisa.beneficiary.com:8000/x/12345?t=i',
    ],
    [
      'ta2SRCMhxtdtKVfoV2MTziaN7F9WD7WKyGvynQa7w3as7ziTr583ZRU1DeKarHjFrLSxuQAZLciZMqry4Yk797qKErWYnCmj8sLaH',
      'https://api.testing.21analytics.xyz/transfers/01H11RHY53MBMEQB1VJ4KJF39Z?t=i',
    ],
    ['taH3Md9Z9jkNtB1Es9Tvmq9gcYYQRyQkLvJe89Cp8pEmXLAaG5zpRp', 'https://localhost.com/travelRule/12345?t=i'],
    ['ta7eawSJpSSSqZScV8b8hDD6hLMtLKC4S6tfKc3', 'https://10.20.1.231/x/12345?t=i'],
  ];
  const MADE: [string, string][] = [
    ['beneficiary.com/x/12345?t=i', 'ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv'],
    ['localhost', 'ta226rAKyTmMxzsmkda5U2Vhw1'],
    ['192.22.123.12', 'ta42ZEr7rdvSpGnVvnttK1bWYQU4f4f'],
    ['https://beneficiary.com/x/12345', 'ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv'],
    ['http://192.22.123.12?t=i', 'ta42ZEr7rdvSpGnVvnttK1bWYQU4f4f'],
    [
      'https://beneficiary.com/x/12345?t=i&foo=bar&color=red',
      'taGw1e4cjuujwyHBV51aspbLBUbcDhebW7ss8iF6dLEn19WfyQZt6HaUTStSE2YcadkFG',
    ],
    ['https://trisa.beneficiary.com', 'ta6HcFqwh5y4D3r7z66JyKqvSAekyXnXc2KwdXSUec'],
    ['https://trisa.beneficiary.com/x/12345', 'ta4uMjxqDq4t7nefCdrm4ssCTewVbvBLzmUnVcYe4SXqGafPTPewG'],
    ['trisa.beneficiary.com:4443', 'ta3dgYSWEoAJPfU2Wdr2hvQmXem4dHbfKuBvkbKGfBrzdb61C'],
    ['https://beneficiary.com:8000', 'ta21hULpYqwBirCCHHU13UMT1hhy3syAAPXJem8cJ'],
    ['trisa.beneficiary.com:4443/x/12345', 'ta2wijJqYhcj5zriQyV5SVWybf71AyHEXgRCa7WWJ8XQk9g1NodLEHbKoHdg'],
    ['https://beneficiary.com:8000/x/12345', 'takLQA9MSCjHr3kkHh4fnC5rWNbrySUJhTwQHZsML2anv95kkqe'],
    ['envoy.local/x/12345?t=i', 'taEi7uRVTrhfqLUzffcu7AqS17UJXUjMqhAdZ6p'],
    ['envoy.local:8100/x/12345?t=i', 'ta7pwsXgswc9soxfnDgsBbWpDVsEwXy4G4hhPEN8WkrmaB'],
    ['envoy.local:8100', 'taAFKaTJj4goXwwCKCmdNPtG8zeze5BeZiK'],
    ['http://envoy.local:8100?t=i', 'taAFKaTJj4goXwwCKCmdNPtG8zeze5BeZiK'],
    [
      'api.testing.21analytics.xyz/transfers/01H11RHY53MBMEQB1VJ4KJF39Z?t=i',
      'ta2SRCMhxtdtKVfoV2MTziaN7F9WD7WKyGvynQa7w3as7ziTr583ZRU1DeKarHjFrLSxuQAZLciZMqry4Yk797qKErWYnCmj8sLaH',
    ],
  ];

  it("gives the documents' result on every example of TRISA's traddr tests, both ways", () => {
    for (const [address, url] of DECODED) expect(decodeTravelAddress(address), address).toBe(url);
    // TRISA's Make takes URLs with or without a scheme; ours takes an absolute URL (https implied).
    const absolute = (u: string) => (/^https?:\/\//.test(u) ? u : `https://${u}`);
    for (const [url, address] of MADE) expect(encodeTravelAddress(absolute(url)), url).toBe(address);
    // And back: every address we make decodes to the URL it was made from (https, t=i).
    for (const [, address] of MADE) expect(encodeTravelAddress(decodeTravelAddress(address))).toBe(address);
  });

  it('refuses what the documents refuse, each with its reason', () => {
    const reason = (s: string) => {
      try {
        decodeTravelAddress(s);
        return null;
      } catch (err) {
        expect(err).toBeInstanceOf(TravelAddressError);
        return (err as Error).message;
      }
    };
    // The documents' own negative case: the example without its prefix.
    expect(reason(DOC_TA.slice(2))).toBe('it does not start with "ta"');
    expect(reason(`${DOC_TA.slice(0, -1)}x`)).toBe('its checksum does not match');
    expect(reason('ta0OIl')).toBe('it is not base58 after "ta"');
    expect(reason(ta('beneficiary.com/x/12345'))).toBe('its URL lacks the query parameter t=i');
    expect(reason(ta('beneficiary.com/x/12345?t=o'))).toBe('its URL lacks the query parameter t=i');
    expect(reason(ta('https://beneficiary.com/x/12345?t=i'))).toBe(
      'it names a URL scheme (https is implied)',
    );
  });
});

const baseEnv = {
  SVC_TRP_PUBLIC_URL: 'https://trp.us.example',
  SVC_TRP_ASSETS: 'ETH:ethereum:18:X9J9K872S',
  SVC_TRP_CALLBACK_SECRET: 'k'.repeat(40),
};
const entry = (extra: Record<string, unknown>) => ({
  vasp_id: 'peer',
  name: 'Peer',
  country: 'DE',
  lei: LEI_PEER,
  addresses: [],
  ...extra,
});
function load(entries: unknown[], env: Record<string, string> = {}) {
  const problems: string[] = [];
  const config = loadTrpConfig({ ...baseEnv, SVC_TRP_DIRECTORY: JSON.stringify(entries), ...env }, problems);
  return { config, problems };
}

describe('directory entries named by their travel address', () => {
  it('a travel address stands for the inquiry URL; with both, they must agree', () => {
    const only = load([entry({ travel_address: DOC_TA })]);
    expect(only.problems).toEqual([]);
    expect(only.config.directory[0]!.inquiry_url).toBe(`https://${DOC_URL}`);
    const both = load([entry({ travel_address: DOC_TA, inquiry_url: 'https://beneficiary.com/x/12345' })]);
    expect(both.problems).toEqual([]);
    expect(both.config.directory[0]!.inquiry_url).toBe('https://beneficiary.com/x/12345');
    expect(
      load([entry({ travel_address: DOC_TA, inquiry_url: 'https://beneficiary.com/x/999' })]).problems,
    ).toEqual([
      `TRP directory entry 0: travel_address decodes to https://${DOC_URL}, which is not its inquiry_url (give one, or both for the same URL)`,
    ]);
  });

  it('a bad travel address fails the start with the reason', () => {
    expect(load([entry({ travel_address: DOC_TA.slice(2) })]).problems).toEqual([
      'TRP directory entry 0: travel_address is not a TRP travel address: it does not start with "ta"',
    ]);
    expect(load([entry({ travel_address: ta('beneficiary.com/x') })]).problems).toEqual([
      'TRP directory entry 0: travel_address is not a TRP travel address: its URL lacks the query parameter t=i',
    ]);
    expect(load([entry({})]).problems).toEqual([
      'TRP directory entry 0: inquiry_url must be an https URL (http only for localhost)',
    ]);
  });
});

describe('the inquiry URLs we issue', () => {
  const { config } = load([entry({ inquiry_url: 'https://trp.peer.example/inquiry' })]);
  const net = createTrp(config, { metrics: new Registry(), log: captureLogger('trace') });
  const token = (url: string) => new URL(url).pathname.split('/').at(-1)!;
  const headers = { 'api-version': '3.2.1', 'request-identifier': '6f1c2a52-58a1-4b8e-9b38-2b8d1a3f4c55' };
  const ivms = toIvms({
    originator: {
      type: 'natural',
      first_name: 'Otto',
      last_name: 'Orlov',
      account_number: '0xabc',
      customer_id: 'c-1',
    },
    beneficiary: { type: 'natural', first_name: 'B', last_name: 'C', account_number: '0xdef' },
    originatorVasp: { name: 'Peer', lei: LEI_PEER, country: 'DE' },
  });
  const inquiry = inquiryJson({
    asset: { dti: 'X9J9K872S' },
    amount: '1',
    callback: 'https://trp.peer.example/cb/1',
    IVMS101: ivms,
  });

  it('each inquiry URL is also shown as a travel address that decodes back to it', () => {
    const shared = net.inquiryAddressFor('peer')!;
    expect(shared.inquiryUrl).toMatch(
      /^https:\/\/trp\.us\.example\/api\/v1\/providers\/travel-rule\/trp\/notifications\/i\.peer\.[A-Za-z0-9_-]{43}$/,
    );
    const decoded = decodeTravelAddress(shared.travelAddress);
    expect(decoded).toBe(`${shared.inquiryUrl}?t=i`);
    expect(net.inquiryAddressFor('nobody')).toBeNull();
    const own = net.inquiryAddressFor('peer', CLIENT)!;
    expect(token(own.inquiryUrl)).toMatch(new RegExp(`^i\\.peer\\.${CLIENT}\\.[A-Za-z0-9_-]{43}$`));
    // A client's URL repeats its token in the query (for the root /identity), written as a travel
    // address writes it (sorted, t=i), so the address decodes to exactly this URL.
    expect(own.inquiryUrl).toBe(
      `https://trp.us.example/api/v1/providers/travel-rule/trp/notifications/${token(own.inquiryUrl)}?id=${token(own.inquiryUrl)}&t=i`,
    );
    expect(decodeTravelAddress(own.travelAddress)).toBe(own.inquiryUrl);
    // A peer posting to the decoded URL, query and all, reaches that client's inquiry endpoint.
    const ownDecoded = new URL(decodeTravelAddress(own.travelAddress));
    expect(
      net.parse({
        rawBody: inquiry,
        headers,
        pathSecret: token(ownDecoded.href),
        query: Object.fromEntries(ownDecoded.searchParams),
      }),
    ).toMatchObject({
      type: 'notification',
      notification: { type: 'transfer.inbound', onlyRecipient: CLIENT },
    });
    // A peer posting to the decoded URL reaches our inquiry endpoint (the query is not the token).
    expect(net.parse({ rawBody: inquiry, headers, pathSecret: token(decoded) })).toMatchObject({
      type: 'notification',
      notification: { type: 'transfer.inbound', reference: 'https://trp.peer.example/cb/1' },
    });
  });

  it("a client's URL takes inquiries for that client only; the shared one for the wallet's owner", () => {
    const own = token(net.inquiryUrl('peer', CLIENT));
    expect(net.parse({ rawBody: inquiry, headers, pathSecret: own })).toMatchObject({
      type: 'notification',
      notification: { type: 'transfer.inbound', recipient: null, onlyRecipient: CLIENT },
    });
    expect(net.parse({ rawBody: inquiry, headers, pathSecret: token(net.inquiryUrl('peer')) })).toMatchObject(
      {
        type: 'notification',
        notification: { type: 'transfer.inbound', recipient: null, onlyRecipient: null },
      },
    );
    // Another client's id under this mac, or a client part that is no id: 404.
    const other = own.replace(CLIENT, '00000000-0000-4000-8000-000000000000');
    expect(net.parse({ rawBody: inquiry, headers, pathSecret: other })).toEqual({
      type: 'refused',
      status: 404,
    });
    expect(net.parse({ rawBody: inquiry, headers, pathSecret: token(net.url('i', 'peer.x')) })).toEqual({
      type: 'refused',
      status: 404,
    });
  });

  it("identity: only on a client's own URL, with our certificate (null without one)", () => {
    const id = (pathSecret: string) => net.identityOf({ pathSecret });
    expect(id(token(net.inquiryUrl('peer', CLIENT)))).toEqual({ clientId: CLIENT, x509: null });
    expect(id(token(net.inquiryUrl('peer')))).toBeNull();
    expect(id(`${token(net.inquiryUrl('peer', CLIENT)).slice(0, -2)}AA`)).toBeNull();
    expect(id(token(net.url('c', CLIENT)))).toBeNull();
    expect(id('nonsense')).toBeNull();
  });

  it('identity at the root: the token from the query; the query must agree with a path token', () => {
    const own = token(net.inquiryUrl('peer', CLIENT));
    const shared = token(net.inquiryUrl('peer'));
    expect(net.identityOf({ query: { id: own, t: 'i' } })).toEqual({ clientId: CLIENT, x509: null });
    expect(net.identityOf({ query: { t: 'i' } })).toBeNull();
    expect(net.identityOf({})).toBeNull();
    expect(net.identityOf({ query: { id: shared } })).toBeNull();
    expect(net.identityOf({ query: { id: `${own.slice(0, -2)}AA` } })).toBeNull();
    expect(net.identityOf({ query: { id: [own, own] } })).toBeNull();
    // Path form with a query: the same token or none.
    expect(net.identityOf({ pathSecret: own, query: { id: own } })).toEqual({ clientId: CLIENT, x509: null });
    expect(net.identityOf({ pathSecret: own, query: { id: shared } })).toBeNull();
    // An inquiry whose query names another token than its path is a wrong URL.
    expect(net.parse({ rawBody: inquiry, headers, pathSecret: own, query: { id: shared, t: 'i' } })).toEqual({
      type: 'refused',
      status: 404,
    });
  });

  it("a beneficiary's travel address resolves only to the one directory VASP of its origin", () => {
    expect(net.resolveTravelAddress(encodeTravelAddress('https://trp.peer.example/x/1'))).toEqual({
      vaspId: 'peer',
    });
    expect(net.resolveTravelAddress(encodeTravelAddress('https://elsewhere.example/inquiry'))).toEqual({
      problem:
        'counterparty_wallet.travel_address names elsewhere.example, which is not the origin of any VASP of our TRP directory',
    });
    const two = load([
      entry({ inquiry_url: 'https://shared.example/a' }),
      entry({ vasp_id: 'twin', lei: '5299000J2N45DDNE4Y28', inquiry_url: 'https://shared.example/b' }),
    ]);
    expect(two.problems).toEqual([]);
    const ambiguous = createTrp(two.config, { metrics: new Registry(), log: captureLogger('trace') });
    expect(ambiguous.resolveTravelAddress(encodeTravelAddress('https://shared.example/a'))).toEqual({
      problem:
        'counterparty_wallet.travel_address names shared.example, which is the origin of several VASPs of our TRP directory (name one with beneficiary_vasp_id)',
    });
    // Review 2: a TRP host serving several VASPs is usable when beneficiary_vasp_id names one of them
    // (it was refused as ambiguous whatever the transfer named); a VASP of another origin is not.
    const shared = encodeTravelAddress('https://shared.example/customer-7');
    expect(ambiguous.resolveTravelAddress(shared, 'twin')).toEqual({ vaspId: 'twin' });
    expect(ambiguous.resolveTravelAddress(shared, 'peer')).toEqual({ vaspId: 'peer' });
    expect(ambiguous.resolveTravelAddress(shared, 'nobody')).toEqual({
      problem:
        'counterparty_wallet.travel_address names shared.example, which is the origin of several VASPs of our TRP directory (name one with beneficiary_vasp_id)',
    });
    expect(
      net.resolveTravelAddress(encodeTravelAddress('https://elsewhere.example/x'), 'peer'),
    ).toMatchObject({
      problem: expect.stringContaining('not the origin of any VASP'),
    });
  });
});
