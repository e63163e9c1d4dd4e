/**
 * The same stranger against every local server of amsflow (core/local-request.ts): a request as
 * a page on a rebound DNS name sends it (foreign Host), as another site's page sends it (foreign
 * Origin, `Origin: null`, an embedding `Sec-Fetch-Site: cross-site`), and the server's own
 * caller's. Raw HTTP, so that the Host header goes out exactly as written.
 */
import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to 127.0.0.1:`port`, headers exactly as given (Host included). */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The strangers' headers, by name; each must be refused with 403. */
export function strangers(port: number): Record<string, Record<string, string>> {
  const own = `127.0.0.1:${port}`;
  return {
    'a rebound Host': { host: `evil.example:${port}` },
    'a rebound Host with an Origin to match': {
      host: `evil.example:${port}`,
      origin: `http://evil.example:${port}`,
    },
    'a foreign Origin': { host: own, origin: 'http://evil.example' },
    'Origin null': { host: own, origin: 'null' },
    'another site embedding it': { host: own, 'sec-fetch-site': 'cross-site' },
  };
}

/**
 * Sends `method path` as each stranger and as the server's own caller; resolves to the status
 * each got and the own answer. `extra` headers go with every request (a content type, a token).
 */
export async function probeStrangers(
  port: number,
  method: string,
  path: string,
  options: { extra?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ strangers: Record<string, number>; bodies: string[]; own: RawAnswer }> {
  const statuses: Record<string, number> = {};
  const bodies: string[] = [];
  for (const [name, headers] of Object.entries(strangers(port))) {
    const answer = await rawRequest(port, method, path, { ...options.extra, ...headers }, options.body);
    statuses[name] = answer.status;
    bodies.push(answer.body);
  }
  const own = await rawRequest(
    port,
    method,
    path,
    { ...options.extra, host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` },
    options.body,
  );
  return { strangers: statuses, bodies, own };
}

/** What {@link probeStrangers} must find: every stranger refused. */
export const ALL_REFUSED = Object.fromEntries(Object.keys(strangers(0)).map((name) => [name, 403]));
