/**
 * A TLS front for a plaintext Temporal frontend, for the connection tests: with the certificates
 * of test/support/test-certificates.ts, a TLS server on a free loopback port that speaks HTTP/2
 * (ALPN `h2`), optionally requires a client certificate signed by the CA, and pipes each
 * connection to the frontend. The TLS is real (Node's, OpenSSL); the
 * Temporal server behind it is the real one.
 */
import { readFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer, type Server } from 'node:tls';
import type { TestCertificates } from './test-certificates';

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
