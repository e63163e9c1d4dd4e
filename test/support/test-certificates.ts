/**
 * Certificates for the TLS tests, made by the script operators use
 * (deploy/temporal/make-certs.sh, with openssl): a CA, a server certificate for `localhost` and
 * 127.0.0.1, a client certificate; and a second set whose CA signed nothing the first trusts (its
 * client certificate is the "stranger").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const MAKE_CERTS = resolve(__dirname, '..', '..', 'deploy', 'temporal', 'make-certs.sh');

/** Paths of the certificates and keys made for one test file. */
export interface TestCertificates {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A CA that signed neither the server's nor the client's certificate. */
  otherCaCert: string;
  /** A client certificate signed by the other CA. */
  strangerCert: string;
  strangerKey: string;
  remove(): void;
}

function makeCerts(dir: string, env: Record<string, string>): void {
  execFileSync('sh', [MAKE_CERTS, dir], {
    env: { PATH: process.env.PATH, DAYS: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** Makes the certificates in a new temporary directory. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-tls-'));
  makeCerts(dir, { CA_NAME: 'amsflow test CA' });
  makeCerts(join(dir, 'other'), { CA_NAME: 'another CA', CLIENT_NAME: 'stranger' });
  const at = (f: string) => join(dir, f);
  return {
    dir,
    caCert: at('ca.crt'),
    serverCert: at('server.crt'),
    serverKey: at('server.key'),
    clientCert: at('client.crt'),
    clientKey: at('client.key'),
    otherCaCert: at('other/ca.crt'),
    strangerCert: at('other/client.crt'),
    strangerKey: at('other/client.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
