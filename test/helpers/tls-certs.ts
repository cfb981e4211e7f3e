/**
 * Throwaway certificates for tests that need TLS with client certificates: a CA, a server
 * certificate for 127.0.0.1 and a client certificate, all signed by that CA (P-256, one day), made
 * with the system `openssl` in `dir`. Returns the file paths.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

export function makeTestPki(dir: string): TestPki {
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-subj',
    '/CN=test-ca',
    '-days',
    '1',
  );
  const leaf = (name: string, ext: string) => {
    ssl('req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`);
    fs.writeFileSync(f(`${name}.ext`), ext);
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      f(`${name}.ext`),
      '-out',
      f(`${name}.pem`),
    );
  };
  leaf('server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf('client', 'extendedKeyUsage=clientAuth\n');
  return {
    caCert: f('ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
  };
}
