/**
 * The TRP adapter's protocol and IVMS 101 mapping, without a database: parties become IVMS 101 that
 * passes the copied IVMS schema (test/standins/trp/SOURCE.md) and carries nothing we do not have;
 * amounts in the lowest denomination stay exact beyond 2^53; the three TRP messages are written and
 * read as documented; our endpoint refuses requests without TRP's headers, with a forged callback
 * token, from a VASP outside the directory or with a callback elsewhere; an inquiry goes out with
 * `api-version` and a UUID `request-identifier`, and the counterparty's outage is retryable while
 * its refusal is not; the settings report every problem.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TravelRuleProviderError } from '../../../src/providers/travel-rule/port';
import type { TrpNetwork } from '../../../src/providers/travel-rule/trp/adapter';
import { loadTrpConfig } from '../../../src/providers/travel-rule/trp/config';
import { createTrp } from '../../../src/providers/travel-rule/trp/index';
import {
  fromBaseUnits,
  fromIvmsPerson,
  inquiryJson,
  ivmsIdType,
  ORIGINATOR_INCOMPLETE,
  originatorProblem,
  parseConfirmation,
  parseInquiry,
  parseResolution,
  toBaseUnits,
  toIvms,
} from '../../../src/providers/travel-rule/trp/mapping';
import { captureLogger } from '../../helpers/log-capture';
import { ivmsErrors } from '../../standins/trp/ivms-check';

const LEI_US = '5493001KJTIIGC8Y1R12';
const LEI_PEER = '529900T8BM49AURSDO55';
const LEI_OTHER = '5299000J2N45DDNE4Y28';
const WALLET = '0x1ed92c398d4a3cf40f84ce687c42c9861a89595c';

const natural = {
  type: 'natural',
  first_name: 'Otto',
  last_name: 'Orlov',
  account_number: '0xabc',
  address: { street: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
  date_of_birth: '1980-02-03',
  place_of_birth: 'Hamburg',
  national_identifier: { type: 'passport', value: 'C01X00T47', country: 'DE' },
  customer_id: 'cust-7',
};
const legal = {
  type: 'legal',
  legal_name: 'Beneficiary GmbH',
  account_number: WALLET,
  address: { city: 'Munich', country: 'DE' },
  national_identifier: { type: 'lei', value: LEI_PEER, country: 'DE' },
};
const vasp = { name: 'VASP A', lei: LEI_US, country: 'DE' };

describe('IVMS 101 from our parties', () => {
  it('natural and legal persons pass the IVMS 101 schema with IVMS names and codes', () => {
    const ivms = toIvms({ originator: natural, beneficiary: legal, originatorVasp: vasp });
    expect(ivmsErrors(ivms as unknown as Record<string, unknown>)).toEqual([]);
    expect(ivms.originator).toEqual({
      originatorPersons: [
        {
          naturalPerson: {
            name: {
              nameIdentifier: [
                { primaryIdentifier: 'Orlov', secondaryIdentifier: 'Otto', nameIdentifierType: 'LEGL' },
              ],
            },
            geographicAddress: [
              {
                addressType: 'HOME',
                addressLine: ['Hauptstr. 1'],
                postCode: '10115',
                townName: 'Berlin',
                country: 'DE',
              },
            ],
            nationalIdentification: {
              nationalIdentifier: 'C01X00T47',
              nationalIdentifierType: 'CCPT',
              countryOfIssue: 'DE',
            },
            customerIdentification: 'cust-7',
            dateAndPlaceOfBirth: { dateOfBirth: '1980-02-03', placeOfBirth: 'Hamburg' },
          },
        },
      ],
      accountNumber: ['0xabc'],
    });
    expect(ivms.beneficiary.beneficiaryPersons[0]).toEqual({
      legalPerson: {
        name: {
          nameIdentifier: [{ legalPersonName: 'Beneficiary GmbH', legalPersonNameIdentifierType: 'LEGL' }],
        },
        // No street: IVMS 101 (C7) takes no address without an address line, so none goes.
        // An LEI names its issuer: no country of issue.
        nationalIdentification: { nationalIdentifier: LEI_PEER, nationalIdentifierType: 'LEIX' },
      },
    });
    expect(ivms.originatingVASP.originatingVASP.legalPerson).toEqual({
      name: { nameIdentifier: [{ legalPersonName: 'VASP A', legalPersonNameIdentifierType: 'LEGL' }] },
      nationalIdentification: { nationalIdentifier: LEI_US, nationalIdentifierType: 'LEIX' },
      countryOfRegistration: 'DE',
    });
  });

  it('invents nothing: a date of birth without its place, an address without a street, no identifier', () => {
    const bare = {
      type: 'natural',
      first_name: 'A',
      last_name: 'B',
      account_number: 'x',
      date_of_birth: '1990-01-01',
      address: { city: 'Berlin', country: 'DE' },
    };
    const ivms = toIvms({
      originator: { ...bare, customer_id: 'c-1' },
      beneficiary: bare,
      originatorVasp: { name: 'V', country: 'DE' },
    });
    expect(ivmsErrors(ivms as unknown as Record<string, unknown>)).toEqual([]);
    expect(ivms.beneficiary.beneficiaryPersons[0]).toEqual({
      naturalPerson: {
        name: {
          nameIdentifier: [{ primaryIdentifier: 'B', secondaryIdentifier: 'A', nameIdentifierType: 'LEGL' }],
        },
      },
    });
    expect(ivms.originatingVASP.originatingVASP.legalPerson).not.toHaveProperty('nationalIdentification');
    // Such a person cannot be the originator (IVMS 101 C1): refused with a reason before sending.
    expect(originatorProblem(bare)).toBe(ORIGINATOR_INCOMPLETE);
    expect(originatorProblem({ ...bare, customer_id: 'c-1' })).toBeNull();
    expect(originatorProblem({ ...bare, place_of_birth: 'Hamburg' })).toBeNull();
    expect(
      originatorProblem({ ...bare, address: { street: 'Hauptstr. 1', city: 'Berlin', country: 'DE' } }),
    ).toBeNull();
    expect(
      ivmsErrors(toIvms({ originator: bare, beneficiary: bare, originatorVasp: vasp }) as never),
    ).toEqual([
      'originator/0: C1 the originator needs an address, customer id, national id or birth date and place',
    ]);
  });

  it('a legal person carries its LEI only, never another identifier or a country of issue (C8/C9)', () => {
    const taxed = { ...legal, national_identifier: { type: 'tax_id', value: 'DE123', country: 'DE' } };
    const ivms = toIvms({ originator: taxed, beneficiary: legal, originatorVasp: vasp });
    expect(ivms.originator.originatorPersons[0]).not.toHaveProperty('legalPerson.nationalIdentification');
    expect(originatorProblem(taxed)).toBe(ORIGINATOR_INCOMPLETE);
    expect(originatorProblem(legal)).toBeNull();
    const bad = toIvms({ originator: natural, beneficiary: legal, originatorVasp: vasp }) as any;
    bad.beneficiary.beneficiaryPersons[0].legalPerson.nationalIdentification = {
      nationalIdentifier: 'X1',
      nationalIdentifierType: 'CCPT',
      countryOfIssue: 'DE',
    };
    bad.originator.originatorPersons[0].naturalPerson.geographicAddress[0] = {
      addressType: 'HOME',
      townName: 'Berlin',
      country: 'DE',
    };
    expect(ivmsErrors(bad)).toEqual([
      'originator/0: C7 an address needs addressLine or streetName with buildingNumber/buildingName',
      'beneficiary/0: C8 legal person identifier type',
      'beneficiary/0: C9 no countryOfIssue for a legal person',
      'beneficiary/0: C9 registrationAuthority required unless LEIX',
    ]);
  });

  it('the schema copy catches what IVMS forbids', () => {
    const ivms = toIvms({ originator: natural, beneficiary: legal, originatorVasp: vasp }) as any;
    ivms.originator.originatorPersons[0].naturalPerson.geographicAddress[0].country = 'Germany';
    ivms.originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth.dateOfBirth = '03.02.1980';
    const errors = ivmsErrors(ivms);
    expect(errors.some((e) => e.includes('/country'))).toBe(true);
    expect(errors.some((e) => e.includes('/dateOfBirth'))).toBe(true);
  });

  it('identifier types: IVMS codes as they are, our words for them, anything else MISC', () => {
    expect(ivmsIdType('CCPT')).toBe('CCPT');
    expect(ivmsIdType('passport')).toBe('CCPT');
    expect(ivmsIdType('tax_id')).toBe('TXID');
    expect(ivmsIdType('membership card')).toBe('MISC');
  });

  it('an IVMS person back as our party (round trip of what both have)', () => {
    const ivms = toIvms({ originator: natural, beneficiary: legal, originatorVasp: vasp });
    expect(fromIvmsPerson(ivms.originator.originatorPersons[0], '0xabc')).toEqual({
      ...natural,
      national_identifier: { type: 'CCPT', value: 'C01X00T47', country: 'DE' },
    });
    const { address: _noStreet, ...legalSent } = legal;
    expect(fromIvmsPerson(ivms.beneficiary.beneficiaryPersons[0], WALLET)).toEqual({
      ...legalSent,
      national_identifier: { type: 'LEIX', value: LEI_PEER },
    });
  });
});

describe('TRP amounts and messages', () => {
  it('decimal amounts <-> integers in the lowest denomination, exact beyond 2^53', () => {
    expect(toBaseUnits('1.5', 8)).toBe('150000000');
    expect(toBaseUnits('1.000000000000000001', 18)).toBe('1000000000000000001');
    expect(toBaseUnits('0.10', 2)).toBe('10');
    expect(() => toBaseUnits('0.123', 2)).toThrow();
    expect(fromBaseUnits('1000000000000000001', 18)).toBe('1.000000000000000001');
    expect(fromBaseUnits('150000000', 8)).toBe('1.5');
    expect(fromBaseUnits('5', 8)).toBe('0.00000005');
  });

  it('an inquiry is written with its amount as a JSON integer and read back exactly', () => {
    const json = inquiryJson({
      asset: { dti: 'X9J9K872S' },
      amount: '1000000000000000001',
      callback: 'https://a.example/cb',
      IVMS101: {},
    });
    expect(json).toContain('"amount":1000000000000000001,');
    expect(parseInquiry(json)).toEqual({
      asset: { dti: 'X9J9K872S' },
      amount: '1000000000000000001',
      callback: 'https://a.example/cb',
      IVMS101: {},
    });
    expect(parseInquiry('{"asset":{"dti":"X"},"amount":0,"callback":"https://x","IVMS101":{}}')).toBeNull();
    expect(parseInquiry('{"asset":{},"amount":5,"callback":"https://x","IVMS101":{}}')).toBeNull();
  });

  it('resolutions are exactly one of approved {address, callback} or rejected', () => {
    expect(parseResolution('{"approved":{"address":"0x1","callback":"https://b/c"}}')).toEqual({
      approved: { address: '0x1', callback: 'https://b/c' },
    });
    expect(parseResolution('{"rejected":"no"}')).toEqual({ rejected: 'no' });
    expect(parseResolution('{"approved":{"address":"0x1"}}')).toBeNull();
    expect(parseResolution('{"approved":{"address":"0x1","callback":"c"},"rejected":"x"}')).toBeNull();
  });

  it('confirmations are exactly one of txid or canceled', () => {
    expect(parseConfirmation('{"txid":"0xabc"}')).toEqual({ txid: '0xabc' });
    expect(parseConfirmation('{"canceled":null}')).toEqual({ canceled: null });
    expect(parseConfirmation('{"canceled":"changed my mind"}')).toEqual({ canceled: 'changed my mind' });
    expect(parseConfirmation('{"txid":"0xabc","canceled":null}')).toBeNull();
  });
});

describe('the TRP adapter on the wire', () => {
  let server: Server;
  let peer: string;
  let answer = 200;
  let reply = '{}';
  const seen: { headers: IncomingMessage['headers']; body: string; url: string }[] = [];
  let net: TrpNetwork;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body, url: req.url ?? '' });
        res.writeHead(answer, { 'content-type': 'application/json' }).end(reply);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    peer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const problems: string[] = [];
    const config = loadTrpConfig(
      {
        SVC_TRP_PUBLIC_URL: 'https://trp.us.example',
        SVC_TRP_DIRECTORY: JSON.stringify([
          {
            vasp_id: 'peer',
            name: 'Peer',
            country: 'DE',
            lei: LEI_PEER,
            inquiry_url: `${peer}/trp/inquiry`,
            addresses: [{ chain: 'ethereum', address: WALLET }],
          },
          {
            vasp_id: 'other',
            name: 'Other',
            country: 'CH',
            lei: LEI_OTHER,
            inquiry_url: 'https://trp.other.example/inquiry',
            addresses: [],
          },
        ]),
        SVC_TRP_ASSETS: 'ETH:ethereum:18:X9J9K872S',
        SVC_TRP_CALLBACK_SECRET: 'k'.repeat(40),
        SVC_TRP_BREAKER_FAILURES: '100',
      },
      problems,
    );
    expect(problems).toEqual([]);
    net = createTrp(config, { metrics: new Registry(), log: captureLogger('trace') });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const token = (url: string) => url.split('/').at(-1)!;
  const msg = {
    transferId: '01a228b8-0c04-75e3-859c-1c8805a3aaf6',
    vaspId: 'peer',
    asset: 'ETH',
    chain: 'ethereum',
    amount: '2.5',
    originator: natural,
    beneficiary: { ...legal, account_number: WALLET },
    originatorVasp: vasp,
  };

  it('discovery by the directory; send posts the inquiry with TRP headers, valid IVMS and our callback', async () => {
    await expect(net.discover('ethereum', WALLET.toUpperCase().replace('0X', '0x'))).resolves.toMatchObject({
      hosted: true,
      vasp: { vasp_id: 'peer' },
    });
    await expect(net.discover('ethereum', '0x0000000000000000000000000000000000000001')).resolves.toEqual({
      hosted: false,
    });
    answer = 200;
    await net.send(msg);
    const req = seen.at(-1)!;
    expect(req.url).toBe('/trp/inquiry');
    expect(req.headers['api-version']).toBe('3.2.1');
    expect(req.headers['request-identifier']).toMatch(/^[0-9a-f-]{36}$/);
    const body = parseInquiry(req.body)!;
    expect(body.amount).toBe('2500000000000000000');
    expect(body.asset).toEqual({ dti: 'X9J9K872S' });
    expect(body.callback).toBe(net.resolutionUrl(msg.transferId, 'peer'));
    expect(token(body.callback)).toMatch(/^r\.[0-9a-f-]{36}\.peer\.[A-Za-z0-9_-]{43}$/);
    expect(ivmsErrors(body.IVMS101 as Record<string, unknown>)).toEqual([]);
  });

  it('a resolution in the inquiry reply comes back from send (no reply resolution: nothing)', async () => {
    answer = 200;
    await expect(net.send(msg)).resolves.toBeUndefined();
    reply = JSON.stringify({ approved: { address: WALLET, callback: `${peer}/conf/5` } });
    await expect(net.send(msg)).resolves.toMatchObject({
      type: 'transfer.accepted',
      reference: msg.transferId,
      revision: 1,
      approvedAddress: WALLET,
      counterpartyCallback: `${peer}/conf/5`,
    });
    reply = JSON.stringify({ rejected: 'no such customer' });
    await expect(net.send(msg)).resolves.toMatchObject({
      type: 'transfer.rejected',
      reason: 'no such customer',
    });
    reply = 'null';
    await expect(net.send(msg)).resolves.toBeUndefined();
    reply = '{}';
  });

  it('an outage is retryable, a refusal is not; a missing DTI or LEI is refused before calling', async () => {
    answer = 503;
    const down = await net.send(msg).catch((e) => e);
    expect(down).toBeInstanceOf(TravelRuleProviderError);
    expect(down.retryable).toBe(true);
    answer = 400;
    const refused = await net.send(msg).catch((e) => e);
    expect(refused.retryable).toBe(false);
    // Every attempt of one message carries the same request-identifier (a peer recognises a replay);
    // another transfer's inquiry another one.
    const ids = seen.slice(-2).map((r) => r.headers['request-identifier']);
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[1]).toBe(ids[0]);
    await net.send({ ...msg, transferId: '01a228b8-0c04-75e3-859c-1c8805a3aaf7' }).catch(() => null);
    expect(seen.at(-1)!.headers['request-identifier']).not.toBe(ids[0]);
    const calls = seen.length;
    await expect(net.send({ ...msg, asset: 'BTC', chain: 'bitcoin' })).rejects.toMatchObject({
      retryable: false,
    });
    await expect(net.send({ ...msg, originatorVasp: { name: 'V', country: 'DE' } })).rejects.toMatchObject({
      retryable: false,
    });
    expect(seen.length).toBe(calls);
  });

  it('each resolution has its own request-identifier, the same on every attempt of it', async () => {
    // An approval, then a rejection (the client cancels the approved inbound transfer): a peer that
    // recognises replays by the identifier must not take the rejection for a replay of the approval.
    answer = 204;
    await net.respond(`${peer}/cb/7`, 'accepted', null, { transferId: msg.transferId, address: WALLET });
    const approved = seen.at(-1)!.headers['request-identifier'];
    answer = 503;
    const down = await net.respond(`${peer}/cb/7`, 'rejected', 'Canceled by the client').catch((e) => e);
    expect(down.retryable).toBe(true);
    const rejected = seen.at(-1)!.headers['request-identifier'];
    answer = 204;
    await net.respond(`${peer}/cb/7`, 'rejected', 'Canceled by the client');
    const retried = seen.at(-1)!.headers['request-identifier'];
    expect(approved).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rejected).not.toBe(approved);
    expect(retried).toBe(rejected);
    // Another inquiry's resolution has another identifier.
    await net.respond(`${peer}/cb/8`, 'rejected', 'Canceled by the client');
    expect(seen.at(-1)!.headers['request-identifier']).not.toBe(rejected);
  });

  it('answers and confirmations go to the counterparty callback', async () => {
    answer = 204;
    await net.respond(`${peer}/cb/1`, 'accepted', null, { transferId: msg.transferId, address: WALLET });
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({
      approved: { address: WALLET, callback: net.url('c', msg.transferId) },
    });
    await net.respond(`${peer}/cb/1`, 'rejected', 'Unknown beneficiary');
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ rejected: 'Unknown beneficiary' });
    await net.confirm(msg.transferId, `${peer}/conf/1`, '0xfeed');
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ txid: '0xfeed' });
    const before = seen.length;
    await net.cancel(msg.transferId, 'peer', null);
    expect(seen.length).toBe(before);
    await net.cancel(msg.transferId, 'peer', `${peer}/conf/1`);
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ canceled: 'Canceled by the originator VASP' });
  });

  const headers = { 'api-version': '3.2.1', 'request-identifier': '6f1c2a52-58a1-4b8e-9b38-2b8d1a3f4c55' };

  it('our endpoint: TRP headers required, callback tokens unforgeable, only directory VASPs calling back home', () => {
    const r = token(net.resolutionUrl(msg.transferId, 'peer'));
    const resolution = JSON.stringify({ approved: { address: WALLET, callback: `${peer}/conf/9` } });
    expect(net.parse({ rawBody: resolution, headers: {}, pathSecret: r })).toEqual({
      type: 'refused',
      status: 401,
    });
    expect(net.parse({ rawBody: resolution, headers, pathSecret: `${r.slice(0, -2)}AA` })).toEqual({
      type: 'refused',
      status: 404,
    });
    expect(net.parse({ rawBody: resolution, headers, pathSecret: r })).toEqual({
      type: 'notification',
      notification: expect.objectContaining({
        type: 'transfer.accepted',
        reference: msg.transferId,
        counterpartyCallback: `${peer}/conf/9`,
        approvedAddress: WALLET,
      }),
    });
    const c = token(net.url('c', msg.transferId));
    expect(net.parse({ rawBody: '{"txid":"0xbeef"}', headers, pathSecret: c })).toEqual({
      type: 'notification',
      notification: expect.objectContaining({ type: 'transfer.completed', txHash: '0xbeef', revision: 2 }),
    });
    const ivms = toIvms({
      originator: natural,
      beneficiary: { ...legal, account_number: WALLET },
      originatorVasp: { name: 'Peer', lei: LEI_PEER, country: 'DE' },
    });
    const inquiry = (callback: string, lei = LEI_PEER) =>
      inquiryJson({
        asset: { dti: 'X9J9K872S' },
        amount: '2500000000000000000',
        callback,
        IVMS101: {
          ...ivms,
          originatingVASP: {
            originatingVASP: {
              legalPerson: {
                ...ivms.originatingVASP.originatingVASP.legalPerson,
                nationalIdentification: { nationalIdentifier: lei, nationalIdentifierType: 'LEIX' },
              },
            },
          },
        },
      });
    const i = token(net.url('i', 'peer'));
    expect(i).toMatch(/^i\.peer\.[A-Za-z0-9_-]{43}$/);
    const ok = net.parse({ rawBody: inquiry(`${peer}/cb/77`), headers, pathSecret: i });
    expect(ok).toMatchObject({
      type: 'notification',
      notification: {
        type: 'transfer.inbound',
        reference: `${peer}/cb/77`,
        recipient: null,
        transfer: {
          asset: 'ETH',
          chain: 'ethereum',
          amount: '2.5',
          fiat_value: null,
          beneficiary_address: WALLET,
          originator_vasp: { vasp_id: 'peer', lei: LEI_PEER },
        },
      },
    });
    expect(net.parse({ rawBody: inquiry('https://elsewhere.example/cb'), headers, pathSecret: i })).toEqual({
      type: 'refused',
      status: 401,
    });
    // The body must name the VASP whose URL it reached: another LEI (even a directory one) is refused.
    expect(net.parse({ rawBody: inquiry(`${peer}/cb/78`, LEI_US), headers, pathSecret: i })).toEqual({
      type: 'refused',
      status: 401,
    });
  });

  it("an approval is taken only with an https callback on the answering VASP's origin (S5)", async () => {
    const approval = (callback: string) => JSON.stringify({ approved: { address: WALLET, callback } });
    const at = (pathSecret: string, callback: string) =>
      net.parse({ rawBody: approval(callback), headers, pathSecret });
    const refusedApproval = {
      type: 'refused',
      status: 400,
      detail: "Refused TRP approval: its callback must be an https URL on the answering VASP's own origin",
    };
    const taken = {
      type: 'notification',
      notification: expect.objectContaining({ type: 'transfer.accepted' }),
    };
    const toPeer = token(net.resolutionUrl(msg.transferId, 'peer'));
    expect(at(toPeer, `${peer}/conf/9`)).toEqual(taken);
    for (const callback of [
      'https://trp.other.example/conf/1', // another directory VASP's origin
      'https://elsewhere.example/conf/1',
      `${peer.replace('127.0.0.1', 'localhost')}/conf/9`, // same host, another origin
      'ftp://127.0.0.1/conf',
      'not a url',
    ])
      expect(at(toPeer, callback)).toEqual(refusedApproval);
    // A rejection names no callback: taken as before.
    expect(net.parse({ rawBody: '{"rejected":"no"}', headers, pathSecret: toPeer })).toMatchObject({
      type: 'notification',
    });
    const toOther = token(net.resolutionUrl(msg.transferId, 'other'));
    expect(at(toOther, 'https://trp.other.example/trp/confirm/1')).toEqual(taken);
    expect(at(toOther, 'http://trp.other.example/trp/confirm/1')).toEqual(refusedApproval);
    expect(at(toOther, `${peer}/conf/9`)).toEqual(refusedApproval);
    // The URL names a VASP no longer in the directory: its approval cannot be checked, so is refused.
    const toGone = token(net.url('r', `${msg.transferId}.gone`));
    expect(at(toGone, `${peer}/conf/9`)).toEqual(refusedApproval);
    // The VASP part is covered by the mac: another VASP's name on our URL is a forged token.
    expect(at(toPeer.replace('.peer.', '.other.'), 'https://trp.other.example/c')).toEqual({
      type: 'refused',
      status: 404,
    });
    // A URL from before resolution URLs named the VASP: the origin of some directory VASP.
    const legacy = token(net.url('r', msg.transferId));
    expect(at(legacy, `${peer}/conf/9`)).toEqual(taken);
    expect(at(legacy, 'https://elsewhere.example/conf/1')).toEqual(refusedApproval);
    // In the inquiry's own reply: not taken either (the inquiry stays delivered, unresolved).
    answer = 200;
    reply = approval('https://elsewhere.example/conf/1');
    await expect(net.send(msg)).resolves.toBeUndefined();
    reply = approval(`${peer}/conf/5`);
    await expect(net.send(msg)).resolves.toMatchObject({ type: 'transfer.accepted' });
    reply = '{}';
  });

  it('malformed messages are answered 400 with a reason, not taken as delivered', () => {
    const i = token(net.url('i', 'peer'));
    const bad = [
      '{}',
      'not json',
      JSON.stringify({ asset: { dti: 'X9J9K872S' }, amount: 2.5, callback: `${peer}/cb/1`, IVMS101: {} }),
      JSON.stringify({ asset: { dti: 'X9J9K872S' }, amount: 1e21, callback: `${peer}/cb/1`, IVMS101: {} }),
    ];
    for (const rawBody of bad)
      expect(net.parse({ rawBody, headers, pathSecret: i })).toEqual({
        type: 'refused',
        status: 400,
        detail: expect.stringMatching(/^Malformed TRP inquiry: /),
      });
    expect(
      net.parse({ rawBody: '{"approved":{}}', headers, pathSecret: token(net.url('r', msg.transferId)) }),
    ).toEqual({
      type: 'refused',
      status: 400,
      detail: 'Malformed TRP resolution: exactly one of approved {address, callback} or rejected',
    });
    expect(net.parse({ rawBody: '{}', headers, pathSecret: token(net.url('c', msg.transferId)) })).toEqual({
      type: 'refused',
      status: 400,
      detail: 'Malformed TRP confirmation: exactly one of txid or canceled',
    });
  });

  it('inquiries only on a counterparty URL with a valid mac: the plain path and forged tokens are refused', () => {
    const body = inquiryJson({
      asset: { dti: 'X9J9K872S' },
      amount: '1',
      callback: `${peer}/cb/79`,
      IVMS101: toIvms({
        originator: natural,
        beneficiary: { ...legal, account_number: WALLET },
        originatorVasp: { name: 'Peer', lei: LEI_PEER, country: 'DE' },
      }),
    });
    const i = token(net.url('i', 'peer'));
    const refused = { type: 'refused', status: 404 };
    for (const pathSecret of [
      'inquiry',
      `${i.slice(0, -2)}AA`,
      `i.other.${i.split('.')[2]}`,
      token(net.url('i', 'unknown')), // a valid mac for an id not in the directory
      token(net.url('r', msg.transferId)).replace(/^r/, 'i'),
    ])
      expect(net.parse({ rawBody: body, headers, pathSecret })).toEqual(refused);
    expect(net.parse({ rawBody: body, headers, pathSecret: i })).toMatchObject({ type: 'notification' });
  });

  it('settings: every problem listed', () => {
    const problems: string[] = [];
    loadTrpConfig(
      {
        SVC_TRP_PUBLIC_URL: 'http://trp.example.com',
        SVC_TRP_DIRECTORY:
          '[{"vasp_id":"x","name":"X","country":"Germany","lei":"123","inquiry_url":"ftp://x","addresses":[{"chain":"mars","address":"1"}]}]',
        SVC_TRP_ASSETS: 'ETH:ethereum:99:nope',
        SVC_TRP_CALLBACK_SECRET: 'short',
        SVC_TRP_RETRY_SECONDS: '0',
      },
      problems,
    );
    expect(problems).toEqual([
      'SVC_TRP_PUBLIC_URL must be an https URL (http only for localhost)',
      'SVC_TRP_CALLBACK_SECRET must be at least 32 characters',
      'TRP directory entry 0: country must be ISO 3166-1 alpha-2',
      'TRP directory entry 0: lei must be a 20-character LEI',
      'TRP directory entry 0: inquiry_url must be an https URL (http only for localhost)',
      'TRP directory entry 0: every address needs a known chain and an address',
      'SVC_TRP_ASSETS: "ETH:ethereum:99:nope" must be ASSET:chain:decimals(0-18):DTI',
      'SVC_TRP_RETRY_SECONDS must be up to 20 waits in seconds (1-86400), comma separated',
    ]);
  });
});
