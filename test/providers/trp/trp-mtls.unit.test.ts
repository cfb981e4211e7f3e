/**
 * TRP's mTLS from our side: with SVC_TRP_TLS_CERT_FILE/KEY_FILE (and CA_FILE) the adapter presents
 * our client certificate, so a peer that requires one (a local https server here, with throwaway
 * certificates made by openssl in a temp dir) takes the inquiry; the same call without the
 * certificate fails the handshake (retryable, nothing delivered). The settings: files readable, PEM,
 * key matching the certificate, both required in production.
 */
import fs from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TravelRuleProviderError } from '../../../src/providers/travel-rule/port';
import { loadTrpConfig } from '../../../src/providers/travel-rule/trp/config';
import { createTrp } from '../../../src/providers/travel-rule/trp/index';
import { captureLogger } from '../../helpers/log-capture';
import { makeTestPki, type TestPki } from '../../helpers/tls-certs';

const LEI_US = '5493001KJTIIGC8Y1R12';
const LEI_PEER = '529900T8BM49AURSDO55';
const WALLET = '0x1ed92c398d4a3cf40f84ce687c42c9861a89595c';

describe('TRP mTLS client certificate', () => {
  let dir: string;
  let pki: TestPki;
  let server: Server;
  let peer: string;
  const seen: { cn: unknown }[] = [];
  const env = () => ({
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
    ]),
    SVC_TRP_ASSETS: 'ETH:ethereum:18:X9J9K872S',
    SVC_TRP_CALLBACK_SECRET: 'k'.repeat(40),
  });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trp-mtls-'));
    pki = makeTestPki(dir);
    server = createServer(
      {
        cert: fs.readFileSync(pki.serverCert),
        key: fs.readFileSync(pki.serverKey),
        ca: fs.readFileSync(pki.caCert),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        seen.push({ cn: (req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN });
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    peer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const msg = {
    transferId: '01a228b8-0c04-75e3-859c-1c8805a3aaf6',
    vaspId: 'peer',
    asset: 'ETH',
    chain: 'ethereum',
    amount: '1',
    originator: {
      type: 'natural',
      first_name: 'Otto',
      last_name: 'Orlov',
      account_number: '0xabc',
      customer_id: 'cust-7',
    },
    beneficiary: { type: 'legal', legal_name: 'Beneficiary GmbH', account_number: WALLET },
    originatorVasp: { name: 'VASP A', lei: LEI_US, country: 'DE' },
  };

  it('presents our certificate to a peer that requires one; without it the handshake fails', async () => {
    const problems: string[] = [];
    const config = loadTrpConfig(
      {
        ...env(),
        SVC_TRP_TLS_CERT_FILE: pki.clientCert,
        SVC_TRP_TLS_KEY_FILE: pki.clientKey,
        SVC_TRP_TLS_CA_FILE: pki.caCert,
      },
      problems,
      'production',
    );
    expect(problems).toEqual([]);
    const runtime = { metrics: new Registry(), log: captureLogger('trace') };
    await createTrp(config, runtime).send(msg);
    expect(seen).toEqual([{ cn: 'client' }]);

    // The same peer and CA, no client certificate: refused in the handshake, retryable, nothing seen.
    const bare = new Agent({ connect: { ca: fs.readFileSync(pki.caCert, 'utf8') } });
    const err = await createTrp({ ...config, tls: null }, { ...runtime, dispatcher: bare })
      .send(msg)
      .catch((e) => e);
    expect(err).toBeInstanceOf(TravelRuleProviderError);
    expect(err.retryable).toBe(true);
    expect(seen).toHaveLength(1);
    await bare.close();
  });

  it('settings: readable PEM files, the key of the certificate, required in production', () => {
    const load = (extra: Record<string, string>, environment: 'sandbox' | 'production' = 'sandbox') => {
      const problems: string[] = [];
      const config = loadTrpConfig({ ...env(), ...extra }, problems, environment);
      return { problems, tls: config.tls };
    };
    expect(load({})).toEqual({ problems: [], tls: null });
    expect(load({}, 'production').problems).toEqual([
      'SVC_TRP_TLS_CERT_FILE and SVC_TRP_TLS_KEY_FILE are required in production (TRP peers require mTLS)',
    ]);
    expect(load({ SVC_TRP_TLS_CERT_FILE: pki.clientCert }).problems).toEqual([
      'SVC_TRP_TLS_CERT_FILE and SVC_TRP_TLS_KEY_FILE are set together or not at all',
    ]);
    expect(
      load({
        SVC_TRP_TLS_CERT_FILE: path.join(dir, 'missing.pem'),
        SVC_TRP_TLS_KEY_FILE: pki.clientCert,
        SVC_TRP_TLS_CA_FILE: path.join(dir, 'client.ext'),
      }).problems,
    ).toEqual([
      'SVC_TRP_TLS_CERT_FILE cannot be read',
      'SVC_TRP_TLS_KEY_FILE is not a PEM private key',
      'SVC_TRP_TLS_CA_FILE is not a PEM certificate',
    ]);
    expect(
      load({ SVC_TRP_TLS_CERT_FILE: pki.clientCert, SVC_TRP_TLS_KEY_FILE: pki.serverKey }).problems,
    ).toEqual(['SVC_TRP_TLS_KEY_FILE is not the key of SVC_TRP_TLS_CERT_FILE']);
    const ok = load(
      { SVC_TRP_TLS_CERT_FILE: pki.clientCert, SVC_TRP_TLS_KEY_FILE: pki.clientKey },
      'production',
    );
    expect(ok.problems).toEqual([]);
    expect(ok.tls?.cert).toContain('BEGIN CERTIFICATE');
  });
});
