/**
 * A TLS front for a plaintext Temporal frontend, for the connection tests: certificates made
 * here with `openssl` (a CA, a server certificate for `localhost` and 127.0.0.1, a client
 * certificate, and a second CA that signed nothing the front shows), and a TLS server on a free
 * loopback port that speaks HTTP/2 (ALPN `h2`), optionally requires a client certificate signed
 * by the CA, and pipes each connection to the frontend. The TLS is real (Node's, OpenSSL); the
 * Temporal server behind it is the real one.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';

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

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A key and a certificate for `name`, signed by `ca` (or self-signed), valid for a day. */
function issue(dir: string, name: string, subject: string, ca?: string, ext?: string): void {
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`], dir);
  if (!ca) {
    openssl(
      [
        'req',
        '-x509',
        '-new',
        '-key',
        `${name}.key`,
        '-subj',
        subject,
        '-days',
        '1',
        '-out',
        `${name}.crt`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ],
      dir,
    );
    return;
  }
  openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
  const extFile = join(dir, `${name}.ext`);
  writeFileSync(extFile, ext ?? '');
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      extFile,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );
}

/** Makes the certificates in a new temporary directory. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-tls-'));
  issue(dir, 'ca', '/CN=amsflow test CA');
  issue(dir, 'other-ca', '/CN=another CA');
  issue(
    dir,
    'server',
    '/CN=localhost',
    'ca',
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n',
  );
  issue(
    dir,
    'client',
    '/CN=amsflow-worker',
    'ca',
    'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n',
  );
  issue(
    dir,
    'stranger',
    '/CN=stranger',
    'other-ca',
    'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n',
  );
  const at = (f: string) => join(dir, f);
  return {
    dir,
    caCert: at('ca.crt'),
    serverCert: at('server.crt'),
    serverKey: at('server.key'),
    clientCert: at('client.crt'),
    clientKey: at('client.key'),
    otherCaCert: at('other-ca.crt'),
    strangerCert: at('stranger.crt'),
    strangerKey: at('stranger.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsFront {
  /** `127.0.0.1:port` of the TLS endpoint. */
  address: string;
  close(): Promise<void>;
}

/**
 * A TLS endpoint in front of the plaintext frontend at `upstream` (`host:port`); with
 * `requireClientCert`, only clients with a certificate signed by the CA get through.
 */
export async function startTlsFront(
  certs: TestCertificates,
  upstream: string,
  { requireClientCert = false }: { requireClientCert?: boolean } = {},
): Promise<TlsFront> {
  const [host, port] = [
    upstream.slice(0, upstream.lastIndexOf(':')),
    Number(upstream.slice(upstream.lastIndexOf(':') + 1)),
  ];
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    {
      key: readFileSync(certs.serverKey),
      cert: readFileSync(certs.serverCert),
      ca: readFileSync(certs.caCert),
      requestCert: requireClientCert,
      rejectUnauthorized: requireClientCert,
      ALPNProtocols: ['h2'],
    },
    (client) => {
      const backend = connect(port, host);
      sockets.add(client);
      sockets.add(backend);
      const end = () => {
        client.destroy();
        backend.destroy();
        sockets.delete(client);
        sockets.delete(backend);
      };
      client.on('error', end).on('close', end);
      backend.on('error', end).on('close', end);
      client.pipe(backend).pipe(client);
    },
  );
  // A handshake refused (no or a wrong client certificate) is the client's failure, not ours.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: tlsPort } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${tlsPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
